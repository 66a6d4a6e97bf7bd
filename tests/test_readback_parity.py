"""The config lint's own reader (an indentation tree, validators/config_lint/readback.blocks)
against ciscoconfparse2, an independent reader: both see the same lines under the same parents
in every rendered EOS, IOS-XR and NX-OS file of the example."""

from __future__ import annotations

from pathlib import Path

import pytest
from ciscoconfparse2 import CiscoConfParse
from meetme.validators.config_lint.readback import Block, blocks

RENDERED = Path(__file__).resolve().parent.parent / "rendered"
CISCO_STYLE = sorted(RENDERED.rglob("*.cfg"))


def _ours(found: list[Block]) -> list[tuple[int, str, object]]:
    return [(b.line, b.text, _ours(b.children)) for b in found]


def _theirs(objects: list[object]) -> list[tuple[int, str, object]]:
    return [
        (o.linenum + 1, o.text.strip(), _theirs(o.children))  # type: ignore[attr-defined]
        for o in objects
        if o.text.strip() and not o.text.strip().startswith("!")  # type: ignore[attr-defined]
    ]


def test_the_example_has_cisco_style_files() -> None:
    assert len(CISCO_STYLE) >= 20


@pytest.mark.parametrize("path", CISCO_STYLE, ids=lambda p: p.name)
def test_both_readers_agree_on_every_line_and_parent(path: Path) -> None:
    text = path.read_text()
    parsed = CiscoConfParse(text.splitlines(), syntax="ios", ignore_blank_lines=False)
    top = [o for o in parsed.objs if o.parent is o or o.parent is None or o.indent == 0]
    assert _ours(blocks(text)) == _theirs(top)
