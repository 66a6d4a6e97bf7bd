"""What a twin was built from, and whether the intent on disk still builds that twin.

`up` records in the site's state file the intent folder it built the twin from (its absolute
path) and two digests taken before it read that folder: of the folder's files (every name and
its bytes, as the lint record keys them, meetme/record.py) and of meetme itself (its code,
templates and data, the Python interpreter, the installed distributions). A twin is the site's
plan (`topology.plan`, written as `twin.json`), a function of exactly these and of `up --bfd`.

`verify` asks `stale` first. Both digests as recorded: the twin is of the intent on disk.
Either one changed: the intent is linted and planned again as `up` would, and the twin is
still current only when that plan is the one `up` wrote, byte for byte (an edit that changes
nothing of this site's twin, such as a comment's, leaves it current; the state then records the
new digests, so the next `verify` does not plan again). Otherwise `verify` refuses (exit 2),
saying why, unless told `--allow-stale`, when it verifies the twin as built and says so.
"""

from __future__ import annotations

import sys
from pathlib import Path

from meetme.core.problems import IntentError
from meetme.outputs import sha256
from meetme.record import _code_digest, _folder_digest, _installed
from meetme.twin import runtime
from meetme.twin.runtime import Source


def source_of(intent: Path) -> Source:
    """The digests of `intent` and of meetme now: take them before reading the intent."""
    code = _code_digest()
    meetme = sha256("\0".join([code, sys.version, *_installed()]).encode()) if code else ""
    return Source(str(intent.resolve()), _folder_digest(intent) or "", meetme)


def stale(site: str) -> str | None:
    """Why the twin of `site` (its state and plan written by `up`) is not the twin the intent
    on disk builds now, a clause for the user (`refusal` and `note` make the line); None when
    it is."""
    path = runtime.state_path(site)
    state = runtime.State.load(path)
    built = state.source if state is not None else None
    if state is None or built is None:
        return (
            f"the twin of {site} does not record the intent it was built from (an older meetme "
            "brought it up)"
        )
    intent = Path(built.intent)
    if not intent.is_dir():
        return f"the twin of {site} was built from {intent}, which is gone"
    now = source_of(intent)
    if now == built and now.files and now.meetme:
        return None
    planned = _replanned(site, intent)
    if planned is not None and planned == _written(site):
        state.source = now  # an edit that changes no part of this twin: it is of now's intent
        state.save(path)
        return None
    if now.meetme != built.meetme and now.files == built.files and now.files:
        changed = "meetme changed"  # its code, templates or Python packages
    elif now.meetme != built.meetme:
        changed = f"{intent} and meetme changed"
    else:
        changed = f"{intent} changed"
    return f"the twin of {site} is out of date: {changed} since `meetme twin up` built it"


def refusal(site: str, why: str) -> str:
    """`verify`'s one line (exit 2) for a twin `stale` found not of the intent on disk."""
    return (
        f"meetme twin: {why}; run `meetme twin up --site {site}` again to bring it up to date "
        "(or `meetme twin verify --allow-stale` to verify the twin as built); nothing was "
        "verified"
    )


def note(why: str) -> str:
    """`verify --allow-stale`'s note for such a twin: its results are of the twin as built."""
    return f"{why}; --allow-stale: these results are of the twin as built"


def _written(site: str) -> str | None:
    try:
        return runtime.plan_path(site).read_text()
    except OSError:
        return None


def _replanned(site: str, intent: Path) -> str | None:
    """The plan `up` would write for `site` from `intent` now (its `twin.json`), None when it
    would build none: the intent unusable, with error findings, or without the site. With
    BFD as the twin running has it (`up --bfd`)."""
    from meetme.pipeline import device_models, lint
    from meetme.twin.topology import Twin, plan

    written = _written(site)
    try:
        bfd = Twin.from_json(written).bfd if written is not None else False
        result = lint(intent)
    except (IntentError, KeyError, TypeError, ValueError):
        return None
    if result.errors or site not in result.fabrics:
        return None
    sessions = result.fabrics[site].edge.sessions
    return plan(site, device_models(result), sessions, bfd).to_json()
