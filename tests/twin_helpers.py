"""What the twin's integration modules share: they run only as root with FRR installed (skipped
without, unless MEETME_TWIN_REQUIRED=1, as in CI, where that fails), and their twins live under
their own namespace prefix: MEETME_TWIN_PREFIX when it is a valid one (names._prefix), so two
engineers' runs on one machine stay apart; else `mt-`."""

from __future__ import annotations

import os

import pytest

from meetme.twin import names, runtime


def require_twin() -> None:
    """Skip the calling module where the twin cannot run; fail instead when CI requires it."""
    why_not = runtime.refusal()
    if why_not is None:
        return
    if os.environ.get("MEETME_TWIN_REQUIRED") == "1":
        pytest.fail(f"MEETME_TWIN_REQUIRED=1 but {why_not}", pytrace=False)
    pytest.skip(why_not, allow_module_level=True)


PREFIX = names.PREFIX if names.PREFIX != "mm-" else "mt-"
