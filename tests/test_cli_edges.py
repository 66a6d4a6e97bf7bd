"""What the command line does at its edges, as a user meets them: a stream the shell closed, a
malformed $MEETME_TODAY, paths and names holding rich markup, the JUnit report of an intent
that could not be read. Each as its own `meetme` process where the process matters."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from meetme.cli import app

runner = CliRunner()


def meetme(repo: Path, shell_tail: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`meetme ...` through sh, so that `>&-` closes a stream as a user's shell does."""
    return subprocess.run(
        ["sh", "-c", f'"{sys.executable}" -m meetme {shell_tail}'],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=300,
        check=False,
    )


def break_yaml(repo: Path) -> None:
    with (repo / "intent/organisation.yaml").open("a") as handle:
        handle.write("bogus: [\n")


@pytest.mark.parametrize("broken", [False, True])
def test_a_closed_stdout_keeps_the_status_the_run_earned(example: Path, broken: bool) -> None:
    if broken:
        break_yaml(example)
    done = meetme(example, "lint >&-")
    assert done.returncode == (2 if broken else 0)
    assert "Traceback" not in done.stderr
    if broken:  # what could not go to stdout still goes to stderr
        assert "intent/organisation.yaml:10:1: error[yaml-syntax]" in done.stderr


def test_a_closed_stderr_keeps_a_clean_lint_clean(example: Path) -> None:
    done = meetme(example, "lint 2>&-")
    assert done.returncode == 0
    assert done.stdout.endswith("0 error(s), 3 warning(s)\n")


@pytest.mark.parametrize("day", ["garbage", "2026-13-01", "2026-02-30"])
@pytest.mark.parametrize("command", ["lint", "render", "check", "report dci"])
def test_a_malformed_today_is_the_users_input_exit_2(example: Path, command: str, day: str) -> None:
    done = meetme(example, command, MEETME_TODAY=day)
    assert done.returncode == 2
    assert done.stderr == (
        f"meetme: MEETME_TODAY='{day}' is not a date (YYYY-MM-DD); set a day such as "
        "2026-06-30, or unset it for today\n"
    )
    assert not (example / "rendered").exists()


def test_a_well_formed_today_is_taken(example: Path) -> None:
    assert meetme(example, "lint", MEETME_TODAY="2026-06-30").returncode == 0


def test_a_file_name_with_brackets_is_named_as_it_is(example: Path) -> None:
    draft = example / "intent/aus1/[draft]links.yaml"
    draft.write_text("bogus: [\n")
    done = meetme(example, "lint")
    assert done.returncode == 2
    assert done.stderr.startswith("intent/aus1/[draft]links.yaml:2:1: error[yaml-syntax]: ")


def test_names_with_markup_are_printed_as_written(example: Path) -> None:
    explained = runner.invoke(app, ["explain", "[/]"])
    assert (explained.exit_code, explained.stderr) == (
        2,
        "unknown rule '[/]'; `meetme rules` lists them\n",
    )
    done = meetme(example, "render --out 'out[/]x'")
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("rendered 34 device(s) into out[/]x\n")
    checked = meetme(example, "check --out 'out[/]x'")
    assert (checked.returncode, checked.stdout) == (0, "out[/]x: 34 file(s) match the intent\n")


def test_the_junit_report_of_an_unusable_intent_lists_the_problem_alone(example: Path) -> None:
    break_yaml(example)
    done = meetme(example, "lint --format junit")
    assert done.returncode == 2
    root = ET.fromstring(done.stdout.split("\n", 1)[1])
    assert (root.get("tests"), root.get("failures")) == ("1", "1")
    assert [suite.get("name") for suite in root] == ["yaml-syntax"]


def test_the_intent_folder_given_as_the_repository_says_which_to_give(example: Path) -> None:
    done = runner.invoke(app, ["lint", "intent"])
    assert (done.exit_code, done.stderr.splitlines()[0]) == (
        2,
        "intent/intent:1:1: error[missing]: intent folder not found; intent holds intent files "
        "itself: name the folder that holds intent/ (the repository), or pass --intent intent",
    )


def test_a_cache_folder_others_may_write_is_left_as_it_is(example: Path, tmp_path: Path) -> None:
    """Compiled templates are run and the key is trusted from the cache folder: one that
    others may write is not used, and nothing is made in it."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    done = meetme(example, "lint", MEETME_CACHE_DIR=str(shared))
    assert done.returncode == 0, done.stderr
    assert list(shared.iterdir()) == []
    assert done.stderr == (  # said once, so that slow renders have their reason
        f"meetme: warning: MEETME_CACHE_DIR={shared} is not a folder this user alone can "
        "write; no compiled template or content hash is kept, so every render is a full one\n"
    )


def test_without_napalm_plan_names_the_extra_to_install(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        "meetme.deploy_cli.importlib.util.find_spec",
        lambda name, *a: None if name == "napalm" else real(name, *a),
    )
    (example / "inventory.yaml").write_text("devices: {}\n")
    done = runner.invoke(app, ["plan", "--stage", "lab"])
    assert done.exit_code == 2
    assert done.stderr == (
        "meetme plan drives devices through NAPALM, which this install lacks: pip install "
        "'meetme[deploy]' (from a checkout: pip install -e '.[deploy]')\n"
    )


def test_version_into_a_closed_pipe_ends_as_every_command_does(example: Path) -> None:
    """`meetme --version | true`: the reader gone, quietly out with SIGPIPE's status."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "meetme", "--version"],
            cwd=example,
            stdout=writer,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        os.close(writer)
    assert (done.returncode, done.stderr) == (141, "")


@pytest.mark.parametrize(
    ("args", "first"),
    [
        (("show", "aus1-br1"), b"hostname: aus1-br1\n"),
        (("schema",), b"{\n"),
        (("rules", "--format", "markdown"), b"# Design-standard rules\n"),
        (("rules", "--format", "json"), b"[\n"),
    ],
)
def test_a_reader_that_takes_a_line_and_goes_ends_every_command_as_sigpipe_would(
    example: Path, args: tuple[str, ...], first: bytes
) -> None:
    """`meetme show aus1-br1 | head -1`: the reader takes the first line and closes the pipe
    while meetme is still writing more than the pipe holds. The write then returns short and
    Python's text layer dropped the rest without a word (exit 0); every command ends as
    `meetme rules | head -1` does: quietly, with 141."""
    whole = runner.invoke(app, list(args)).stdout_bytes
    # more than a pipe (64 KiB) and the reader's one buffered read (readline) hold
    assert whole.startswith(first) and len(whole) > 65536 + io.DEFAULT_BUFFER_SIZE
    started = subprocess.Popen(
        [sys.executable, "-m", "meetme", *args],
        cwd=example,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert started.stdout is not None and started.stderr is not None
    line = started.stdout.readline()
    started.stdout.close()
    said = started.stderr.read()
    assert (line, started.wait(timeout=120), said) == (first, 141, b"")


def test_check_of_a_folder_never_rendered_says_so_once(example: Path) -> None:
    done = runner.invoke(app, ["check"])
    assert (done.exit_code, done.stdout) == (1, "rendered: no such folder; run `meetme render`\n")


def test_a_folder_given_as_the_inventory_is_named_a_folder(example: Path) -> None:
    done = runner.invoke(app, ["plan", "--stage", "lab", "--inventory", "intent"])
    assert done.exit_code == 2
    assert done.stderr.startswith(
        "intent:1:1: error[missing]: inventory is a folder, not a file; write one beside intent/"
    )


def test_a_device_named_in_another_case_is_pointed_at(example: Path) -> None:
    done = runner.invoke(app, ["show", "AUS1-LF1"])
    assert done.exit_code == 2
    assert done.stderr.startswith("unknown device 'AUS1-LF1'; did you mean 'aus1-lf1'?")


def test_a_merge_key_is_one_problem_at_the_key(example: Path) -> None:
    """`<<: *coastal` is refused; the keys it brings in (a `built:` beside hume's `leased:`)
    add no second problem there, and no 'missing key' follows either."""
    dci = example / "intent/dci.yaml"
    text = dci.read_text().replace("    syd-mel-coastal:\n", "    syd-mel-coastal: &coastal\n", 1)
    dci.write_text(
        text.replace("    syd-mel-hume:\n", "    syd-mel-hume:\n      <<: *coastal\n", 1)
    )
    done = runner.invoke(app, ["lint"])
    line = dci.read_text().splitlines().index("      <<: *coastal") + 1
    assert (done.exit_code, done.stderr.splitlines()) == (
        2,
        [
            f"intent/dci.yaml:{line}:7: error[yaml-merge]: YAML merge keys (<<) are not "
            "supported; write the keys out here",
            "1 problem(s) make the intent unusable; nothing was written.",
        ],
    )


@pytest.mark.parametrize("where", ["rendered/aus1", "intent"])
def test_a_render_run_from_inside_rendered_says_the_folder_was_replaced(
    example: Path, where: str
) -> None:
    """render swaps rendered/ as a whole: a shell standing in it is left in the removed folder,
    where the next command cannot read anything. Said once, only to a shell in there."""
    assert meetme(example, "render").returncode == 0
    with (example / "intent/organisation.yaml").open("a") as handle:
        handle.write("# moved on\n")
    done = meetme(example / where, f'render "{example}"')
    assert done.returncode == 0, done.stderr
    said = "which render replaces as a whole; `cd .` to see the new files"
    assert (said in done.stderr) is (where == "rendered/aus1")


HOSTILE = "X\x1b[2J\x1b[31mRED\nforged line"


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["explain", HOSTILE], 2),  # unknown rule, named
        (["schema", "--out", HOSTILE], 0),  # "wrote PATH"
        (["render", "--out", HOSTILE], 0),  # "rendered N device(s) into PATH"
    ],
)
def test_an_argument_with_control_characters_is_echoed_escaped(
    example: Path, args: list[str], code: int
) -> None:
    """An ESC sequence or a line break of an argument would clear the screen, colour it or
    forge a line of meetme's output: every echo escapes it as `show` and the errors do."""
    result = runner.invoke(app, args)
    assert result.exit_code == code, result.output
    assert "\x1b" not in result.output
    assert "X\\x1b[2J\\x1b[31mRED\\nforged line" in result.output
    assert not any(line.startswith("forged line") for line in result.output.splitlines())


def test_diff_says_why_the_base_is_unusable(example: Path) -> None:
    """Text and markdown listed only a count of the base's problems; now each, as JSON did."""
    subprocess.run(["git", "init", "-q"], cwd=example, check=True)
    break_yaml(example)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "add", "-A"], cwd=example, check=True)
    subprocess.run([*git, "commit", "-qm", "broken base"], cwd=example, check=True)
    text = (example / "intent/organisation.yaml").read_text()
    (example / "intent/organisation.yaml").write_text(text.replace("bogus: [\n", ""))
    for fmt, marker in (
        ("text", "  intent/organisation.yaml:"),
        ("markdown", "- `intent/organisation.yaml:"),
    ):
        result = runner.invoke(app, ["diff", "--base", "HEAD", "--format", fmt])
        assert result.exit_code == 0, result.output
        assert "is unusable (1 problem(s))" in result.output
        assert any(line.startswith(marker) for line in result.output.splitlines()), result.output


def test_an_intent_file_given_as_the_intent_folder_names_the_intent_folder(
    example: Path,
) -> None:
    """A site's file or folder given to --intent: the hint names the folder that holds the
    whole intent (it named the site's folder, which lacks `organisation`)."""
    for given in ("intent/aus1/site.yaml", "intent/aus1/none"):
        done = runner.invoke(app, ["lint", "--intent", given])
        what = (
            "a file, not the intent folder"
            if given.endswith(".yaml")
            else "intent folder not found"
        )
        assert (done.exit_code, done.stderr.splitlines()[0]) == (
            2,
            f"{given}:1:1: error[missing]: {what}; intent holds intent files itself: name the "
            "folder that holds intent/ (the repository), or pass --intent intent",
        )


@pytest.mark.parametrize("line", [99, 100, 1234])
def test_a_line_number_is_printed_as_written_never_as_an_emoji(example: Path, line: int) -> None:
    """rich reads `:100:` and `:1234:` as emoji names: an error at line 100 came out as
    `devices.yaml💯15`. Comment lines above the first device's rack, made unknown, put it at
    `line` (99: a neighbour with no emoji name)."""
    devices = example / "intent/aus1/devices.yaml"
    lines = devices.read_text().splitlines(True)
    at = next(n for n, x in enumerate(lines) if x.lstrip().startswith("rack: "))
    lines[at] = lines[at].split("rack: ")[0] + "rack: dh2-rXX\n"
    devices.write_text("".join(["#\n"] * (line - 1 - at) + lines))
    done = meetme(example, "lint")
    assert done.returncode == 2
    column = lines[at].index("dh2-rXX") + 1
    assert f"intent/aus1/devices.yaml:{line}:{column}: error[dangling-name]" in done.stderr
    assert "💯" not in done.stderr + done.stdout
