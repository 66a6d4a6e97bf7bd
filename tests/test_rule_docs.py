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


PROJECT = DOCS.parent
CITATION = re.compile(r"docs/(standards|syntax)\.md#([a-z0-9-]+)")


def _anchors(page: str) -> set[str]:
    return set(re.findall(r'<a id="([a-z0-9-]+)"></a>', (DOCS / f"{page}.md").read_text()))


def test_every_rule_cites_its_own_section_of_the_projects_standards() -> None:
    """A user follows `meetme explain ID`'s source to the project's own standards page."""
    anchors = _anchors("standards")
    rules = all_rules()
    assert len(rules) > 70
    for rule in rules:
        assert rule.id.lower() in anchors, f"docs/standards.md has no section for {rule.id}"


def test_every_citation_in_code_and_templates_resolves() -> None:
    """No citation points outside the project or at a section that does not exist."""
    anchors = {page: _anchors(page) for page in ("standards", "syntax")}
    sources = [
        *PROJECT.glob("templates/*/*.j2"),
        *PROJECT.glob("validators/**/*.py"),
        *PROJECT.glob("generators/**/*.py"),
        *PROJECT.glob("meetme/**/*.py"),
        *PROJECT.glob("validators/data/*.yaml"),
    ]
    texts = {path: path.read_text() for path in sources}
    texts.update({Path(f"rule {r.id}"): r.source for r in all_rules()})
    cited = 0
    for path, text in texts.items():
        assert "STANDARDS.md" not in text and "SYNTAX.md" not in text, path
        for page, anchor in CITATION.findall(text):
            assert anchor in anchors[page], f"{path}: docs/{page}.md#{anchor} does not exist"
            cited += 1
    assert cited > 100  # the templates and rules do cite
