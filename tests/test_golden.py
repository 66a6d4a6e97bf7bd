"""Golden files pin one device per platform and role of the example, line for line: the
fabric underlay on every platform and the peering edge (IX, transit, PNI on IOS-XR; AWS on EOS,
Azure on NX-OS, Google on NVUE); and the second site mel1's three tiers in two pods.

A template change shows up here as a readable diff. After reviewing an intended change,
refresh them with:  MEETME_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest
from conftest import EXAMPLE_INTENT
from helpers import PINNED

from meetme.pipeline import device_models, lint, render_all

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
def rendered() -> dict[str, str]:
    return render_all(device_models(lint(EXAMPLE_INTENT)))


@pytest.mark.parametrize("name", sorted(PINNED), ids=lambda n: PINNED[n])
def test_rendered_matches_golden(rendered: dict[str, str], name: str) -> None:
    golden = GOLDEN / Path(name).name
    if os.environ.get("MEETME_UPDATE_GOLDEN"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(rendered[name])
    expected = golden.read_text()
    if rendered[name] != expected:
        diff = difflib.unified_diff(
            expected.splitlines(),
            rendered[name].splitlines(),
            f"golden/{golden.name}",
            f"rendered {name}",
            lineterm="",
        )
        pytest.fail("rendered output differs from the golden file:\n" + "\n".join(diff))
