"""Command-line conventions: `--version`, running from any folder of a repository, and output
that keeps one line per row or finding when it is piped."""

from __future__ import annotations

import io
import os
import re
from importlib.metadata import version
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import replace_in
from meetme.deploy.engine import DeviceResult
from rich.table import Table
from typer.testing import CliRunner

from meetme import deploy_cli
from meetme.cli import app
from meetme.conventions import PIPED_WIDTH, Console, find_repository, repository
from meetme.pipeline import device_models, lint, render_all, write_rendered

runner = CliRunner()


def meetme(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


# ---- --version -------------------------------------------------------------------------------


def test_version_prints_the_installed_version() -> None:
    assert meetme("--version") == (0, f"meetme {version('meetme')}\n")


def test_version_wins_over_a_command_and_reads_no_intent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no intent anywhere: `lint` alone exits 2
    assert meetme("lint")[0] == 2
    assert meetme("--version", "lint") == (0, f"meetme {version('meetme')}\n")


# ---- the repository, found from any folder inside it -----------------------------------------


@pytest.fixture
def rendered_example(example: Path) -> Path:
    """The example intent and its rendered/ in a throw-away repository (cwd: its top)."""
    write_rendered(example / "rendered", render_all(device_models(lint(example / "intent"))))
    return example


def test_check_from_a_site_folder_of_the_intent(
    rendered_example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(rendered_example / "intent/aus1")
    code, output = meetme("check")
    assert code == 0, output
    assert re.fullmatch(r"\.\./\.\./rendered: \d+ file\(s\) match the intent\n", output)


def test_check_from_the_rendered_folder_and_below(
    rendered_example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(rendered_example / "rendered")
    assert meetme("check")[1].startswith("../rendered: ")
    monkeypatch.chdir(rendered_example / "rendered/aus1")
    assert meetme("check")[1].startswith("../../rendered: ")


def test_lint_from_a_subfolder_names_files_relative_to_where_the_user_stands(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    replace_in(example / "intent/aus1/devices.yaml", "aus1-br1:", "aus1-br1:\n        colour: red")
    monkeypatch.chdir(example / "intent/aus1")
    code, output = meetme("lint")
    assert code == 2, output
    assert re.search(r"^devices\.yaml:\d+:\d+: error\[unknown-key\]", output, re.M), output


def test_render_from_a_subfolder_writes_the_repository_s_rendered_folder(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(example / "intent/aus1")
    code, output = meetme("render")
    assert code == 0, output
    assert output.endswith("device(s) into ../../rendered\n"), output
    assert (example / "rendered/.meetme-rendered").is_file()
    assert not (example / "intent/aus1/rendered").exists()


def test_deploy_commands_find_the_inventory_from_a_subfolder(
    rendered_example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (rendered_example / "inventory.yaml").write_text(
        "credentials: {username: netops, password: secret:lab-admin}\n"
        "devices:\n  aus1-sp1: {host: 192.0.2.1, driver: eos, stage: lab, wave: 1}\n"
    )
    for variable in [v for v in os.environ if v.startswith("MEETME_SECRET_")]:
        monkeypatch.delenv(variable)
    monkeypatch.chdir(rendered_example / "rendered")
    code, output = meetme("plan", "--stage", "lab")
    assert code == 2, output  # inventory and rendered config found; the secrets are not set
    assert "secret 'lab-admin' is not set" in output
    assert "secret 'aus1-netops-hash' is not set" in output  # read from ../rendered


def test_explicit_repo_intent_and_out_keep_their_meaning(
    rendered_example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(rendered_example / "intent/aus1")
    assert meetme("check", "../..")[0] == 0
    code, output = meetme("lint", ".")  # "." named: this folder is the repository, no search
    assert code == 2 and "intent folder not found" in output
    monkeypatch.chdir(rendered_example / "rendered")
    code, output = meetme("check", "--out", ".")  # the rendered folder given, intent found
    assert code == 0 and output.startswith(".: "), output
    monkeypatch.chdir(rendered_example / "intent")
    assert meetme("lint", "--intent", ".")[0] == 0


def test_the_search_stops_at_a_git_work_tree(tmp_path: Path) -> None:
    (tmp_path / "intent").mkdir()
    nested = tmp_path / "other-repo"
    (nested / ".git").mkdir(parents=True)
    (nested / "docs").mkdir()
    assert find_repository(nested / "docs") is None  # above .git is another project
    assert find_repository(tmp_path / "other-repo/..") is not None
    (nested / "intent").mkdir()  # a .git folder that also holds intent/: found, at the boundary
    assert find_repository(nested / "docs") == nested


def test_repository_is_written_relative_to_the_working_directory(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert repository(None) == Path(".")
    monkeypatch.chdir(example / "intent/aus1")
    assert repository(None) == Path("../..")
    assert repository(Path("/somewhere")) == Path("/somewhere")
    monkeypatch.chdir(example.parent)  # above the repository: nothing found, "." as before
    assert repository(None) == Path(".")


# ---- piped output is never folded ------------------------------------------------------------

LONG = "a rule title long enough that rich would fold it at eighty columns " * 3


def test_piped_rules_keep_a_long_title_on_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    rule = SimpleNamespace(id="TEST-001", severity="warning", title=LONG.strip())
    monkeypatch.setattr("meetme.cli._rules", lambda: [rule])
    code, output = meetme("rules")
    assert code == 0
    assert output == f"TEST-001   warning  {LONG.strip()}\n"


def test_piped_lint_keeps_each_finding_on_one_line(example: Path) -> None:
    # both borders in MDF A: PHY-001 and its kin, with messages far longer than 80 columns
    devices = example / "intent/aus1/devices.yaml"
    replace_in(
        devices,
        "room: aus1-mdf-b\n        rack: mdf-b-r01",
        "room: aus1-mdf-a\n        rack: mdf-a-r01",
    )
    code, output = meetme("lint")
    findings = lint(example / "intent").findings
    assert code == 1 and any(f.rule == "PHY-001" for f in findings), output
    assert any(len(f.message) > 80 for f in findings)
    lines = output.splitlines()
    for finding in findings:
        place = f"{finding.location.line}:{finding.location.column}"
        matching = [x for x in lines if finding.message in x and x.lstrip().startswith(place)]
        assert len(matching) == 1, (finding, output)


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _result(device: str, detail: str) -> DeviceResult:
    return DeviceResult(device, 1, "eos", "192.0.2.1", status="failed", detail=detail)


def test_piped_plan_table_keeps_one_row_per_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # a terminal of 100 columns beside the pipe (`meetme plan | less`): the pipe still gets
    # whole rows, never the terminal's width
    monkeypatch.setattr("rich.console.os.get_terminal_size", lambda fd: os.terminal_size((100, 40)))
    monkeypatch.setattr(deploy_cli, "out", Console(highlight=False, soft_wrap=True))
    deploy_cli._summary([_result("aus1-sp1", LONG), _result("aus1-sp2", "short")], "plan")
    lines = capsys.readouterr().out.splitlines()
    (row,) = [line for line in lines if "aus1-sp1" in line]
    assert LONG.strip() in row
    assert len([line for line in lines if "│" in line]) == 2  # two rows, no continuation


def test_a_terminal_keeps_its_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr("rich.console.os.get_terminal_size", lambda fd: os.terminal_size((100, 40)))
    terminal = Console(file=_Tty(), soft_wrap=True, color_system=None)
    assert terminal.width == 100
    table = Table("detail")
    table.add_row(LONG)
    terminal.print(table)
    lines = terminal.file.getvalue().splitlines()  # type: ignore[attr-defined]
    assert max(len(line) for line in lines) <= 100 < len(LONG)
    assert Console(file=io.StringIO()).width == PIPED_WIDTH


def test_an_exported_columns_wins_even_when_piped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "120")
    assert Console(file=io.StringIO()).width == 120
