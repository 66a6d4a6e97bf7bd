"""The DCI tests' intent: the example's aus1, a test copy of a second site mel1 (two Arista
EOS borders) and two circuits between them (tests/data/dci).

The shipped example may gain its own mel1 and DCI circuits; the tests replace them with theirs,
so their hand-written expectations hold whatever the example says: the example's intent/mel1/
folder goes, and so does its top-level `dci:` block (a file left with nothing else goes too).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data/dci"
_TOP_KEY = re.compile(r"^[A-Za-z_]", re.M)


def without_dci(intent: Path) -> None:
    """Remove every top-level `dci:` block from the intent files under `intent`."""
    for path in sorted(intent.rglob("*.y*ml")):
        lines = path.read_text().splitlines(keepends=True)
        kept, inside = [], False
        for line in lines:
            if line.startswith("dci:"):
                inside = True
                continue
            if inside and _TOP_KEY.match(line):
                inside = False
            if not inside:
                kept.append(line)
        if len(kept) == len(lines):
            continue
        text = "".join(kept)
        if _TOP_KEY.search(text):
            path.write_text(text)
        else:
            path.unlink()


def with_dci(repo: Path) -> Path:
    """`repo`'s intent with the test's mel1 and DCI circuits; returns intent/dci.yaml."""
    intent = repo / "intent"
    shutil.rmtree(intent / "mel1", ignore_errors=True)
    without_dci(intent)
    (intent / "mel1").mkdir()
    shutil.copy(DATA / "mel1.yaml", intent / "mel1/site.yaml")
    shutil.copy(DATA / "dci.yaml", intent / "dci.yaml")
    return intent / "dci.yaml"
