"""Issue #9, part 3 and 4: intent comes from the repository, input is bounded, and no message
echoes a secret or outside content, nor lets a value start a CI command of its own.

Each case runs `meetme lint` as a user would (in process, through the CLI) on a copy of the
minimal valid intent of tests/broken/ with one hostile change, and asserts exit 2, the
`file:line:column: error[kind]` line, and no traceback. Limits are tested just inside and just
outside; the value limits are lowered for a test where the real one would only cost time.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest
from conftest import line_of
from typer.testing import CliRunner

from meetme.cli import app
from meetme.core.findings import Finding, WaivedBy
from meetme.core.problems import IntentError, Location, shown
from meetme.intent import loader, yaml_source
from meetme.intent.yaml_source import (
    MAX_ALIASES_PER_FILE,
    MAX_DEPTH,
    MAX_FILE_BYTES,
    MAX_NODES_PER_RUN,
    Budget,
    read_file,
    secret_key,
)
from meetme.pipeline import lint as lint_intent
from meetme.report import render

MINIMAL = Path(__file__).resolve().parent / "broken" / "valid_minimal.yaml"
TOKEN = "ghp_FAKEtoken0123456789abcdefSECRET"
PROBLEM = re.compile(r"^(\S+:\d+:\d+): error\[([\w-]+)\]: (.*)$")


@dataclass
class Run:
    exit_code: int
    output: str  # stdout and stderr together: nothing may leak into either

    def problems(self) -> list[tuple[str, str, str]]:
        lines = self.output.splitlines()
        return [(m[1], m[2], m[3]) for m in map(PROBLEM.match, lines) if m]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository whose intent/ holds the minimal valid intent as site.yaml; cwd is it."""
    (tmp_path / "intent").mkdir()
    shutil.copy(MINIMAL, tmp_path / "intent" / "site.yaml")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def lint(*extra: str) -> Run:
    result = CliRunner().invoke(app, ["lint", "--intent", "intent", *extra])
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"lint crashed: {result.exception!r}"
    )
    output = result.stdout + result.stderr
    assert "Traceback" not in output
    return Run(result.exit_code, output)


def refused(*extra: str) -> list[tuple[str, str, str]]:
    """The problems of a run that must refuse the intent."""
    run = lint(*extra)
    assert run.exit_code == 2, run.output
    return run.problems()


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


# --- symbolic links -------------------------------------------------------------------------


def test_a_link_to_a_file_outside_is_refused_at_the_link(repo: Path, tmp_path: Path) -> None:
    outside = write(tmp_path.parent / f"{tmp_path.name}-elsewhere" / "org.yaml", "extra: 1\n")
    (repo / "intent" / "shared.yaml").symlink_to(outside)
    [(where, kind, message)] = refused()
    assert (where, kind) == ("intent/shared.yaml:1:1", "outside-intent")
    assert "symbolic link" in message and "outside the intent folder" in message
    assert str(outside.parent) not in message  # the target is not named either


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "junit"])
def test_a_linked_env_file_never_shows_its_token(repo: Path, tmp_path: Path, fmt: str) -> None:
    env = write(tmp_path.parent / f"{tmp_path.name}-home" / ".env", f"TOKEN={TOKEN}\n")
    (repo / "intent" / "env.yaml").symlink_to(env)
    run = lint("--format", fmt)
    assert run.exit_code == 2
    assert "intent/env.yaml" in run.output and "outside-intent" in run.output
    assert TOKEN[:8] not in run.output


def test_a_token_file_inside_the_intent_is_not_echoed(repo: Path) -> None:
    write(repo / "intent" / "token.yaml", f"TOKEN={TOKEN}\n")
    [(where, kind, message)] = refused()
    assert (where, kind) == ("intent/token.yaml:1:1", "wrong-type")
    assert message.endswith("not text")
    assert "TOKEN" not in message


def test_a_linked_folder_outside_is_refused_and_not_read(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-shared"
    write(outside / "more.yaml", f"token: {TOKEN}\n")
    (repo / "intent" / "shared").symlink_to(outside, target_is_directory=True)
    run = lint()
    assert run.exit_code == 2
    assert run.problems() == [
        (
            "intent/shared:1:1",
            "outside-intent",
            "symbolic link to a folder outside the intent folder; intent is read from the "
            "repository only: replace the link with the folder itself, or remove it",
        )
    ]
    assert TOKEN[:8] not in run.output


def test_links_inside_the_intent_are_read_once(repo: Path) -> None:
    # read twice, site.yaml would define every site, room and device a second time
    (repo / "intent" / "again.yaml").symlink_to("site.yaml")
    (repo / "intent" / "sub").mkdir()
    (repo / "intent" / "sub" / "up").symlink_to("..", target_is_directory=True)
    run = lint()
    assert run.exit_code == 0, run.output


def test_a_link_to_nothing_is_a_problem_not_a_silent_skip(repo: Path) -> None:
    (repo / "intent" / "gone.yaml").symlink_to("missing.yaml")
    [(where, kind, _)] = refused()
    assert (where, kind) == ("intent/gone.yaml:1:1", "missing")


@pytest.mark.parametrize("name", ["srv6.YAML", "srv6.Yml", "srv6.yAml"])
def test_an_intent_file_not_in_lower_case_is_refused_not_skipped(repo: Path, name: str) -> None:
    """`srv6.YAML` was skipped without a word: 400 config lines vanished with a clean lint."""
    write(repo / "intent" / name, "srv6: {format: F3216}\n")
    [(where, kind, message)] = refused()
    assert (where, kind) == (f"intent/{name}:1:1", "bad-name")
    assert message == (
        f"intent files end in .yaml or .yml, in lower case: rename it to "
        f"srv6{Path(name).suffix.lower()} (as written, meetme reads none of it)"
    )


def test_an_editor_lock_link_beside_a_file_being_edited_is_not_intent(repo: Path) -> None:
    """Emacs locks a file it edits with a dangling link `.#site.yaml`: not a missing file."""
    (repo / "intent" / ".#site.yaml").symlink_to("user@host.12345:1700000000")
    assert lint().exit_code == 0


def test_a_fifo_named_yaml_is_refused_without_waiting(repo: Path) -> None:
    os.mkfifo(repo / "intent" / "pipe.yaml")
    [(where, kind, message)] = refused()
    assert (where, kind) == ("intent/pipe.yaml:1:1", "unreadable")
    assert "not a regular file" in message


# --- tags -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "shown_as"),
    [
        ("!vault |\n  $ANSIBLE_VAULT;1.1;AES256", "!vault"),
        ("!!python/name:os.system", "!!python/name:os.system"),
        ("!!binary aGVsbG8=", "!!binary"),
        ("!custom {a: 1}", "!custom"),
        ("!!set {a, b}", "!!set"),
        ("!!map crah-1", "!!map"),  # core tags, but of another kind of node
        ("!!str [crah-1]", "!!str"),
    ],
)
def test_an_unknown_tag_is_an_error_at_the_tag(repo: Path, written: str, shown_as: str) -> None:
    site = repo / "intent" / "site.yaml"
    text = site.read_text().replace("cooling_zone: crah-1", f"cooling_zone: {written}", 1)
    site.write_text(text)
    line = text.splitlines().index(f"        cooling_zone: {written.splitlines()[0]}") + 1
    problems = refused()
    assert problems[0][:2] == (f"intent/site.yaml:{line}:23", "yaml-tag")
    assert f"unknown YAML tag '{shown_as}'" in problems[0][2]


def test_the_core_tags_are_accepted(repo: Path) -> None:
    site = repo / "intent" / "site.yaml"
    text = site.read_text()
    text = text.replace("cooling_zone: crah-1", "cooling_zone: !!str crah-1", 1)
    text = text.replace("floor: 1", "floor: !!int 1", 1)
    site.write_text(text)
    assert lint().exit_code == 0


# --- limits ---------------------------------------------------------------------------------


def nested(depth: int) -> str:
    """A file whose top mapping holds depth-1 nested flow lists: `depth` levels in all."""
    return "organisation: " + "[" * (depth - 1) + "]" * (depth - 1) + "\n"


def test_nesting_up_to_the_limit_is_read(tmp_path: Path) -> None:
    path = write(tmp_path / "deep.yaml", nested(MAX_DEPTH))
    source, problems = read_file(path, "deep.yaml")
    assert problems == [] and source is not None


def test_nesting_beyond_the_limit_is_refused_where_it_goes_too_deep(tmp_path: Path) -> None:
    path = write(tmp_path / "deep.yaml", nested(MAX_DEPTH + 1))
    source, [problem] = read_file(path, "deep.yaml")
    assert source is None
    assert (str(problem.location), problem.kind) == (f"deep.yaml:1:{14 + MAX_DEPTH}", "too-deep")


@pytest.mark.parametrize(
    "text",
    [
        "a: " + "[" * 3000 + "]" * 3000 + "\n",
        "a: " + "{a: " * 3000 + "}" * 3000 + "\n",
        "a:\n" + "".join("  " * level + "a:\n" for level in range(1, 200)),
    ],
    ids=["lists", "flow-mappings", "block-mappings"],
)
def test_thousands_of_levels_are_refused_not_a_crash(repo: Path, text: str) -> None:
    write(repo / "intent" / "deep.yaml", text)
    [(where, kind, _)] = refused()
    assert kind == "too-deep" and where.startswith("intent/deep.yaml:")


def alias_bomb(levels: int) -> str:
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, levels):
        lines.append(f"l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def test_an_alias_bomb_is_refused_at_the_alias_that_crosses_the_limit(repo: Path) -> None:
    write(repo / "intent" / "bomb.yaml", alias_bomb(9))  # 9**9 = 387 million values
    [(where, kind, message)] = refused()
    # level 5 builds 9**6 = 531,441 values with those before it: the first past 100,000
    assert (where, kind) == ("intent/bomb.yaml:6:10", "too-many-values")
    assert "aliases expanded" in message


def test_values_are_counted_with_aliases_just_inside_and_outside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the top mapping, two keys, the anchored list of 3 (4 values) and the alias (4 more): 11
    path = write(tmp_path / "a.yaml", "a: &x [1, 2, 3]\nb: *x\n")
    monkeypatch.setattr(yaml_source, "MAX_NODES_PER_FILE", 11)
    source, problems = read_file(path, "a.yaml")
    assert source is not None and problems == []
    assert source.data == {"a": [1, 2, 3], "b": [1, 2, 3]}
    monkeypatch.setattr(yaml_source, "MAX_NODES_PER_FILE", 10)
    source, [problem] = read_file(path, "a.yaml")
    assert source is None
    assert (str(problem.location), problem.kind) == ("a.yaml:2:4", "too-many-values")


def test_values_are_counted_over_the_whole_run(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    budget = Budget()
    read_file(repo / "intent" / "site.yaml", "site.yaml", budget)
    in_site = MAX_NODES_PER_RUN - budget.nodes
    # the top mapping, a key, a list of ten: 13 values more
    write(repo / "intent" / "zz.yaml", "extra: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n")
    monkeypatch.setattr(yaml_source, "MAX_NODES_PER_RUN", in_site + 13)
    assert refused()[0][1] == "unknown-key"  # read: the run is within its limit
    monkeypatch.setattr(yaml_source, "MAX_NODES_PER_RUN", in_site + 12)
    [(where, kind, message)] = refused()
    assert where.startswith("intent/zz.yaml:1:") and kind == "too-many-values"
    assert "the intent as a whole" in message


def test_aliases_up_to_the_limit_are_read_and_one_more_is_refused(tmp_path: Path) -> None:
    inside = "a: &x 1\nb: [" + ", ".join(["*x"] * MAX_ALIASES_PER_FILE) + "]\n"
    source, problems = read_file(write(tmp_path / "in.yaml", inside), "in.yaml")
    assert source is not None and problems == []
    outside = inside.replace("[*x", "[*x, *x")
    source, [problem] = read_file(write(tmp_path / "out.yaml", outside), "out.yaml")
    assert source is None and problem.kind == "too-many-aliases"
    assert problem.location.line == 2


def test_a_recursive_alias_is_a_syntax_error_not_a_hang(repo: Path) -> None:
    write(repo / "intent" / "loop.yaml", "a: &a [1, *a]\n")
    assert refused()[0][:2] == ("intent/loop.yaml:1:11", "yaml-syntax")


def padded(size: int) -> str:
    """The minimal valid intent, padded with a comment to exactly `size` bytes."""
    text = MINIMAL.read_text()
    return text + "#" + "x" * (size - len(text.encode()) - 2) + "\n"


def test_a_file_of_exactly_the_size_limit_is_read(repo: Path) -> None:
    site = write(repo / "intent" / "site.yaml", padded(MAX_FILE_BYTES))
    assert site.stat().st_size == MAX_FILE_BYTES
    assert lint().exit_code == 0


def test_a_file_one_byte_over_the_limit_is_refused_before_it_is_read(repo: Path) -> None:
    site = write(repo / "intent" / "site.yaml", padded(MAX_FILE_BYTES + 1))
    assert site.stat().st_size == MAX_FILE_BYTES + 1
    [(where, kind, message)] = refused()
    assert (where, kind) == ("intent/site.yaml:1:1", "too-large")
    assert f"{MAX_FILE_BYTES + 1:,} bytes" in message


def test_the_intent_folder_as_a_whole_is_bounded(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(repo / "intent" / "zz.yaml", "# a comment\n")
    size = sum(p.stat().st_size for p in (repo / "intent").iterdir())
    monkeypatch.setattr(loader, "MAX_INTENT_BYTES", size)
    assert lint().exit_code == 0
    monkeypatch.setattr(loader, "MAX_INTENT_BYTES", size - 1)
    assert refused() == [
        (
            "intent/zz.yaml:1:1",
            "too-large",
            f"the intent files up to this one hold more than {size - 1:,} bytes, what meetme "
            "reads in one run; is --intent the intent folder?",
        )
    ]


# --- characters -----------------------------------------------------------------------------


@pytest.mark.parametrize(("char", "code"), [("\x07", "U+0007"), ("\x00", "U+0000")])
def test_a_control_character_is_a_problem_at_its_position(repo: Path, char: str, code: str) -> None:
    site = repo / "intent" / "site.yaml"
    text = site.read_text().replace("cooling_zone: crah-1", f'cooling_zone: "crah{char}-1"', 1)
    site.write_text(text)
    line = next(n for n, t in enumerate(text.splitlines(), 1) if char in t)
    run = lint()
    assert run.exit_code == 2
    [(where, kind, message)] = run.problems()
    assert (where, kind) == (f"intent/site.yaml:{line}:28", "encoding")
    assert code in message and char not in run.output


def test_bytes_that_are_not_utf8_are_refused_at_their_position(repo: Path) -> None:
    write(repo / "intent" / "noise.yaml", b"a: 1\nb: \xff\xfe" + TOKEN.encode() + b"\n")
    run = lint()
    assert run.exit_code == 2
    [(where, kind, _)] = run.problems()
    assert (where, kind) == ("intent/noise.yaml:2:4", "encoding")
    assert TOKEN[:8] not in run.output


@pytest.mark.parametrize("unreadable", [True, False])
def test_a_file_holding_no_mapping_hides_no_other_problem(repo: Path, unreadable: bool) -> None:
    """A file that is a list, beside a wrong type in another file (and, or not, a file that
    cannot be read): every one of them in the one run."""
    write(repo / "intent" / "listed.yaml", "- dci:\n    currency: AUD\n")
    site = repo / "intent" / "site.yaml"
    site.write_text(site.read_text().replace("id: 11\n", "id: eleven\n", 1))
    if unreadable:
        write(repo / "intent" / "tabbed.yaml", "dci:\n\tcurrency: AUD\n")
    found = [(where.split(":")[0], kind) for where, kind, _ in refused()]
    assert found == [
        ("intent/listed.yaml", "wrong-type"),
        ("intent/site.yaml", "wrong-type"),
        *([("intent/tabbed.yaml", "yaml-tab")] if unreadable else []),
    ]


@pytest.mark.parametrize("unreadable", [True, False])
def test_an_unreadable_file_hides_no_malformed_address(repo: Path, unreadable: bool) -> None:
    """A malformed address and prefix, beside (or not) a file with a YAML syntax error: they are
    wrong whatever that file holds, so the one run names them at their values either way; a
    cross-field check (a link's speed, which may be on its ends) waits for every file."""
    site = repo / "intent" / "site.yaml"
    text = site.read_text().replace("gateway: 192.168.10.1\n", "gateway: 192.168.10.300\n", 1)
    text = text.replace("p2p_v4: 10.1.0.0/16\n", "p2p_v4: 10.1.0.1/16\n", 1)
    site.write_text(text.replace("        speed: 400G\n", "", 1))
    if unreadable:
        write(repo / "intent" / "broken.yaml", "dci: {currency: AUD\n")
    syntax = (
        "intent/broken.yaml:2:1",
        "yaml-syntax",
        "YAML syntax error: expected ',' or '}', but got '<stream end>' (while parsing a flow "
        "mapping that starts at line 1, column 6); is the '{' closed with '}', and are its "
        "entries separated by ','?",
    )
    speed = (
        "intent/site.yaml:52:9",
        "bad-value",
        "sites.lab1.links.0: a link needs a speed, on the link or on both ends",
    )
    assert refused() == [
        *([syntax] if unreadable else []),
        (
            "intent/site.yaml:10:16",
            "bad-value",
            "sites.lab1.management.gateway: '192.168.10.300' is not an IP address: "
            "octet 300 (> 255) not permitted in '192.168.10.300'",
        ),
        (
            "intent/site.yaml:15:15",
            "bad-value",
            "sites.lab1.pools.p2p_v4: '10.1.0.1/16' has host bits set; "
            "write the prefix as 10.1.0.0/16",
        ),
        *([] if unreadable else [speed]),
    ]


# --- what a message may quote -----------------------------------------------------------------


@pytest.mark.parametrize(
    "key", ["key", "password_hash", "authKey", "bgp-tokens", "private", "Credentials"]
)
def test_keys_named_like_secrets(key: str) -> None:
    assert secret_key(key)


@pytest.mark.parametrize("key", ["monkey", "keychain", "hashtag_free_name", "model", "author"])
def test_keys_not_named_like_secrets(key: str) -> None:
    assert not secret_key(key)


def test_shown_values_are_short_and_escaped() -> None:
    assert shown("a" * 24) == "'" + "a" * 24 + "'"
    assert shown("a" * 25) == "'" + "a" * 24 + "…'"
    assert shown("x\n::add-mask::y") == "'x\\n::add-mask::y'"
    assert shown(10**5000) == "a very long number"


def test_a_value_under_a_secret_key_is_never_echoed(example: Path) -> None:
    peering = example / "intent" / "aus1" / "peering.yaml"
    text = peering.read_text().replace('key: "secret:transit-a"', "key: 12345678", 1)
    peering.write_text(text)
    line = next(n for n, t in enumerate(text.splitlines(), 1) if "key: 12345678" in t)
    for fmt in ("text", "json", "github"):
        run = lint("--format", fmt)
        assert run.exit_code == 2
        assert f"intent/aus1/peering.yaml:{line}:16" in run.output or fmt != "text"
        assert "12345678" not in run.output


CLOUDS = "intent/aus1/clouds.yaml"
PRIVATE_VIF = "private-1: {type: private, vrf: gpu-a,"  # an AWS private VIF, named as AWS says


def test_a_value_under_an_entry_named_like_a_secret_is_quoted(example: Path) -> None:
    """The name a user gives an entry (a private VIF `private-1`) is not a field that holds a
    secret: a wrong value under it is quoted as anywhere else."""
    clouds = example / CLOUDS
    assert PRIVATE_VIF in clouds.read_text()
    clouds.write_text(clouds.read_text().replace(PRIVATE_VIF, f"{PRIVATE_VIF} mtu: 99999,", 1))
    run = lint()
    assert run.exit_code == 2, run.output
    assert "vifs.private-1.mtu: " in run.output and "got 99999" in run.output, run.output


def test_a_secret_under_an_entry_named_like_a_secret_is_still_hidden(example: Path) -> None:
    """The VIF's own `key` field, and a key the schema does not know but named like a secret,
    keep their values out of every message."""
    clouds = example / CLOUDS
    text = clouds.read_text().replace(PRIVATE_VIF, f"{PRIVATE_VIF} passwd: 9876543,", 1)
    clouds.write_text(text.replace('key: "secret:aws-dx-aus1"', "key: 12345678", 1))
    run = lint()
    assert run.exit_code == 2 and "private-1.key: expected text, got a number" in run.output
    assert "unknown key 'passwd'" in run.output, run.output
    assert "12345678" not in run.output and "9876543" not in run.output


def test_a_yaml_1_1_value_under_an_entry_named_like_a_secret_gets_the_same_advice(
    example: Path,
) -> None:
    """What the YAML reader says of a value YAML 1.1 reads otherwise (a leading zero, `yes`,
    an unknown tag) quotes it under an entry the user named `private-1` too, with the number
    to write instead: only the schema's own fields say a value is a secret."""
    clouds = example / CLOUDS
    text = clouds.read_text()
    assert text.count("vlan: 101,") == 2  # private-1's and private-2's
    clouds.write_text(
        text.replace("vlan: 101,", "vlan: 0101,", 1).replace("vlan: 101,", "vlan: yes,")
    )
    run = lint()
    assert run.exit_code == 2, run.output
    assert (
        "0101 has a leading zero: YAML 1.1 reads it as octal, i.e. 65; write 101 for the "
        'number, or quote it ("0101") for text' in run.output
    ), run.output
    assert "yes is the boolean true in YAML 1.1, not the text 'yes'" in run.output
    clouds.write_text(text.replace("vlan: 101,", "vlan: !Vlan 101,", 1))
    assert "unknown YAML tag '!Vlan'" in lint().output


def test_a_yaml_1_1_secret_under_an_entry_named_like_a_secret_is_still_hidden(
    example: Path,
) -> None:
    """The boundary: the VIF's own `key` field, and a key the schema does not know but named
    like a secret, keep the YAML reader's messages free of their values."""
    clouds = example / CLOUDS
    text = clouds.read_text()
    clouds.write_text(text.replace('key: "secret:aws-dx-aus1"', "key: 0755", 1))
    run = lint()
    assert run.exit_code == 2 and "this is a base-60 or octal number" in run.output, run.output
    assert "0755" not in run.output and "493" not in run.output
    clouds.write_text(text.replace(PRIVATE_VIF, f"{PRIVATE_VIF} passwd: !Hunter2 x,", 1))
    run = lint()
    assert run.exit_code == 2 and "unknown YAML tag;" in run.output, run.output
    assert "Hunter2" not in run.output


def test_a_hexadecimal_too_long_to_write_in_decimal_is_still_a_number(example: Path) -> None:
    """4,000 hex digits are a number Python will not write in decimal (past 4,300 digits): it
    was 'not an integer YAML 1.2 understands'; it is a number where text is wanted, quoted by
    a short prefix as written."""
    devices = example / "intent/aus1/devices.yaml"
    devices.write_text(devices.read_text().replace("rack: dh1-r10", "rack: 0x" + "f" * 4000, 1))
    run = lint()
    assert run.exit_code == 2, run.output
    assert "aus1-lf1.rack: expected text, got the number 0xffffffffffffffffffffff…" in run.output
    assert "not an integer" not in run.output and "f" * 30 not in run.output


def test_an_octal_looking_secret_is_not_echoed(example: Path) -> None:
    peering = example / "intent" / "aus1" / "peering.yaml"
    peering.write_text(peering.read_text().replace('key: "secret:transit-a"', "key: 0755", 1))
    run = lint()
    assert run.exit_code == 2 and "yaml-ambiguous" in run.output
    assert "0755" not in run.output and "493" not in run.output


def test_a_long_value_is_quoted_by_a_short_prefix_only(repo: Path) -> None:
    site = repo / "intent" / "site.yaml"
    long_role = "spine" + "Z" * 500
    site.write_text(site.read_text().replace("role: spine", f"role: {long_role}", 1))
    [(_, kind, message)] = refused()
    assert kind == "bad-value"
    assert f"'{long_role[:24]}…'" in message and "Z" * 25 not in message


# --- report formats ---------------------------------------------------------------------------

INJECTION = "x\n::add-mask::ghp\r\n::warning::y%0A"


def hostile_finding() -> Finding:
    """A waived finding whose message, waiver reason and file name each try to end the line."""
    waiver = WaivedBy(Location("waivers.yaml", 3, 1), "noc", INJECTION, date(2030, 1, 1), "error")
    message = f"unknown key '{INJECTION}'"
    return Finding(
        "unknown-key", "waived", message, Location("intent/a,b:c.yaml", 2, 3), "a", waiver
    )


def test_github_annotations_escape_as_the_runner_does() -> None:
    out = render([hostile_finding()], "github", [])
    lines = out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("::notice file=intent/a%2Cb%3Ac.yaml,")
    assert not any(line.startswith(("::add-mask", "::warning")) for line in lines)
    assert "x%0A::add-mask::ghp%0D%0A::warning::y%250A" in lines[0]


def test_text_report_keeps_each_finding_on_its_line() -> None:
    out = render([hostile_finding()], "text", [])
    assert not any(line.startswith("::") for line in out.splitlines())
    assert "\r" not in out and "x\\n::add-mask::ghp\\r\\n::warning::y" in out


def test_junit_json_and_sarif_parse_and_keep_the_text() -> None:
    finding = hostile_finding()
    bell = Finding("rule", "error", "a\x07b\x00c", Location("intent/a.yaml", 1, 1), "p")
    root = ET.fromstring(render([finding, bell], "junit", []).split("\n", 1)[1])
    assert root.get("failures") == "1"
    assert json.loads(render([finding], "json", []))[0]["message"] == finding.message
    sarif = json.loads(render([finding], "sarif", []))
    assert sarif["runs"][0]["results"][0]["message"]["text"] == finding.message


def test_a_key_that_carries_a_command_is_escaped_in_every_format(repo: Path) -> None:
    site = repo / "intent" / "site.yaml"
    site.write_text(site.read_text() + '"bad\\n::add-mask::abc": 1\n')
    for fmt in ("text", "github", "json", "sarif", "junit"):
        run = lint("--format", fmt)
        assert run.exit_code == 2
        assert not any(line.lstrip().startswith("::add-mask") for line in run.output.splitlines())
        assert "unknown-key" in run.output


# --- meetme diff over a committed link ----------------------------------------------------------


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.mark.parametrize("target", ["/etc/passwd", "../../../../etc/passwd"])
def test_diff_refuses_a_committed_link_leaving_the_intent(repo: Path, target: str) -> None:
    git(repo, "init", "-q")
    (repo / "intent" / "x.yaml").symlink_to(target)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base with a link")
    (repo / "intent" / "x.yaml").unlink()
    result = CliRunner().invoke(app, ["diff", "--base", "HEAD", "--format", "json"])
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output and "root:" not in result.output
    report = json.loads(result.stdout)
    assert report["base_problems"] == [
        "intent/x.yaml:1:1: error[outside-intent]: symbolic link (or special file) leaving the "
        "intent folder, committed at the base; intent is read from the repository only, so it "
        "was not followed"
    ]
    assert report["summary"]["added"] == ["lab1-lf1", "lab1-sp1"]


# --- names that collide where case is not kept ------------------------------------------------


def test_device_names_differing_only_in_case_are_refused(example: Path) -> None:
    """`AUS1-LF1` beside `aus1-lf1` rendered two files that are one on macOS and Windows."""
    devices = example / "intent/mel1/devices.yaml"
    text = devices.read_text()
    spare = (
        "      AUS1-LF1:\n        id: 250\n        role: leaf\n        platform: cisco_nxos\n"
        "        model: N9K-C9364D-GX2A\n        room: mel1-dh1\n        rack: mel1-dh1-r10\n"
        "        management: 192.168.20.250/24\n"
    )
    devices.write_text(text.replace("      mel1-lf101:\n", spare + "      mel1-lf101:\n", 1))
    line = devices.read_text().splitlines().index("      AUS1-LF1:") + 1
    problems = [p for p in refused() if p[1] == "duplicate-name"]
    assert problems == [
        (
            f"intent/mel1/devices.yaml:{line}:7",
            "duplicate-name",
            "device name 'AUS1-LF1' differs from 'aus1-lf1' (site 'aus1') only in letter case: "
            "on a case-insensitive checkout (macOS, Windows) both configs are one file, and DNS "
            "takes them for one host: rename one",
        )
    ]


@pytest.mark.parametrize("name", ["a-new.yaml", "zz-new.yaml"])  # read before, and after
@pytest.mark.parametrize(
    ("text", "key", "got"),
    [
        (
            "sites:\n  aus1:\n    devices:\n      # new devices go here\n",
            "sites.aus1.devices",
            "an empty value",
        ),
        ("sites:\n  aus1:\n    devices: []\n", "sites.aus1.devices", "a list"),
        (
            "sites:\n  aus1:\n    peering: {transits: }\n",
            "sites.aus1.peering.transits",
            "an empty value",
        ),
        ("sites:\n", "sites", "an empty value"),
    ],
)
def test_an_empty_collection_beside_its_entries_in_another_file_is_one_problem(
    example: Path, name: str, text: str, key: str, got: str
) -> None:
    """Collections combine across files: a placeholder left empty in a new file is that
    value's one problem, at its own line, never 'write it in one file only' on the file
    holding the entries, nor a dangling name for every device it holds."""
    (example / "intent/aus1" / name).write_text(text)
    with pytest.raises(IntentError) as caught:
        lint_intent(example / "intent")
    (only,) = caught.value.problems
    line = text.count("\n", 0, text.index(key.rsplit(".", 1)[-1] + ":")) + 1
    assert (only.location.file, only.location.line, only.kind) == (
        f"intent/aus1/{name}",
        line,
        "wrong-type",
    )
    assert only.message == (
        f"{key}: expected a mapping (key: value), got {got}; another file writes its entries: "
        "remove this key, or write entries under it"
    )


@pytest.mark.parametrize(
    ("written", "message"),
    [
        ("99.99", 'value 99.99 is a number here, and the choices are text: quote it: "99.99"'),
        # the number 99.9, written otherwise: the choice it means, quoted
        ("99.90", 'value 99.90 is a number here, and the choices are text: quote it: "99.9"'),
        ("99.5", "value 99.5 is not allowed; write one of 99.9, 99.99 (did you mean '99.9'?)"),
    ],
)
def test_a_number_where_the_choices_are_text_is_told_to_quote_it(
    example: Path, written: str, message: str
) -> None:
    """Unquoted, `sla: 99.99` is a number: 'is not allowed; write one of 99.9, 99.99' said
    the value it was given was wrong."""
    clouds = example / "intent/aus1/clouds.yaml"
    clouds.write_text(clouds.read_text().replace('sla: "99.99"', f"sla: {written}", 1))
    with pytest.raises(IntentError) as caught:
        lint_intent(example / "intent")
    (only,) = caught.value.problems
    assert only.message == f"sites.aus1.peering.gcp.gcp-ic.sla: {message}"


def test_a_sites_missing_settings_are_reported_in_its_settings_file(example: Path) -> None:
    """aus1 is written across nine files. Its settings emptied (`aus1: {}` in site.yaml), each
    missing one is reported at site.yaml's `aus1:`, not in attachments.yaml, the file that
    sorts first; with only `asn` gone, site.yaml still holds the rest and is named."""
    site = example / "intent/aus1/site.yaml"
    original = site.read_text()
    site.write_text(original[: original.index("  aus1:\n")] + "  aus1: {}\n")
    with pytest.raises(IntentError) as caught:
        lint_intent(example / "intent")
    assert [(str(p.location), p.kind, p.message.split(";")[0]) for p in caught.value.problems] == [
        ("intent/aus1/site.yaml:3:3", "missing-key", f"sites.aus1 has no '{key}'")
        for key in ("asn", "environment", "management", "pools")
    ]
    lines = original.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith("    asn:"))
    end = next(i for i in range(start + 1, len(lines)) if not lines[i].startswith("      "))
    site.write_text("".join(lines[:start] + lines[end:]))
    with pytest.raises(IntentError) as caught:
        lint_intent(example / "intent")
    (only,) = caught.value.problems
    assert (str(only.location), only.message.split(";")[0]) == (
        f"intent/aus1/site.yaml:{line_of(site, '  aus1:')}:3",
        "sites.aus1 has no 'asn'",
    )
