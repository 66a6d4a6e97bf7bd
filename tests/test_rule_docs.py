"""The rule catalogue page (docs/rules.md) is generated and must not fall behind the rules."""

from __future__ import annotations

import re
from pathlib import Path

from meetme.validators.engine import all_rules
from typer.testing import CliRunner

from meetme.cli import app
from meetme.report import CATALOGUE_COMMAND

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_committed_catalogue_is_up_to_date() -> None:
    result = CliRunner().invoke(app, ["rules", "--format", "markdown"])
    assert result.exit_code == 0
    committed = (DOCS / "rules.md").read_text(encoding="utf-8")
    assert committed == result.stdout, (
        f"docs/rules.md is out of date; regenerate it from the repository root: {CATALOGUE_COMMAND}"
    )


def test_catalogue_lists_every_rule_with_its_metadata() -> None:
    page = CliRunner().invoke(app, ["rules", "--format", "markdown"]).stdout
    for rule in all_rules():
        row = f"| [{rule.id}](#{rule.id.lower()}) | {rule.severity} |"
        assert row in page
        section = page.split(f"\n## {rule.id}\n", 1)[1].split("\n## ", 1)[0]
        assert rule.title in section and rule.rationale in section
        assert "Source: " in section
        for url in re.findall(r"https?://\S+", rule.source):
            assert f"<{url.rstrip('.;,)')}>" in section
