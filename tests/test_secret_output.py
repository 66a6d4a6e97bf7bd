"""No value of a secret in what a push prints or journals: values the run's masks cannot know
(the key a device runs before a rotation), spellings of a known value (YAML's quoting), and
values that would make the mask itself a give-away (a blank, a device's name)."""

from __future__ import annotations

from pathlib import Path

import pytest
from emulator.lab import Lab
from helpers import resolved
from meetme.deploy.engine import describe
from meetme.deploy.journal import Journal
from meetme.deploy.nvue_rest import _lines
from meetme.deploy.secret_positions import HIDDEN, hide_values
from meetme.deploy.secret_store import SecretStore
from typer.testing import CliRunner

from meetme.cli import app
from meetme.core.problems import Location, Problem

runner = CliRunner()


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        # the `-` side of a rotation: what each platform's device runs now
        (
            "-username netops privilege 15 role network-admin secret sha512 $6$Lab0salt$old",
            f"-username netops privilege 15 role network-admin secret sha512 {HIDDEN}",
        ),
        (
            "   neighbor 192.0.2.1 password 7 0822455D0A16",
            f"   neighbor 192.0.2.1 password 7 {HIDDEN}",
        ),
        ("-  password clear trA-key-91#zz", f"-  password clear {HIDDEN}"),
        ("-  password encrypted 0822455D0A16", f"-  password encrypted {HIDDEN}"),
        ("- secret 10 $6$Lab0salt$old", f"- secret 10 {HIDDEN}"),
        (
            "-username admin password 5 $5$abc role network-admin",
            f"-username admin password 5 {HIDDEN} role network-admin",
        ),
        ("-        hashed-password: $6$Lab0salt$old", f"-        hashed-password: {HIDDEN}"),
        ("-            password: 'old key with spaces'", f"-            password: {HIDDEN}"),
    ],
)
def test_a_value_at_a_secret_place_is_hidden_whatever_it_is(line: str, shown: str) -> None:
    assert hide_values(line) == shown


@pytest.mark.parametrize(
    "line",
    [
        "+  password clear <<secret:transit-a>>",  # this run's value, masked already
        "+            password: '<<secret:ix-syd-rs>>'",
        "+  authentication key-chain EDGE",  # a key chain's name, not a key
        "+interface Ethernet1/1",
        "+ description keyring-room-2",
    ],
)
def test_a_placeholder_or_a_line_without_a_secret_stays_as_it_is(line: str) -> None:
    assert hide_values(line) == line


def test_a_yaml_quoted_value_is_masked_like_the_raw_one() -> None:
    """NVUE diffs are the device's trees written as YAML: a `'` in a value is doubled there."""
    store = SecretStore({"mon": "$6$Lab1salt$it's: a monitor hash"})
    masked = store.mask("+        hashed-password: '$6$Lab1salt$it''s: a monitor hash'")
    assert masked == "+        hashed-password: '<<secret:mon>>'"


def test_nvue_diff_lines_write_each_value_whole_and_unescaped() -> None:
    """A long value is not folded over two lines and a non-ASCII one is not \\x-escaped: either
    would be a spelling of the secret no mask knows."""
    long_value = "key: with a colon that goes on well past the eighty columns of a line" * 2
    tree = {"system": {"aaa": {"user": {"a": {"hashed-password": long_value}}}}}
    tree["system"]["aaa"]["user"]["b"] = {"hashed-password": "Pässwörd-€-Ünïcode"}
    lines = _lines(tree)
    store = SecretStore({"long": long_value, "uni": "Pässwörd-€-Ünïcode"})
    masked = [store.mask(line) for line in lines]
    assert "        hashed-password: '<<secret:long>>'" in masked
    assert "        hashed-password: <<secret:uni>>" in masked
    assert len(lines) == 7


@pytest.mark.parametrize(
    ("value", "accepted"),
    [
        ("        ", False),  # blank: every indentation would be masked
        ("trA-key-NEW-1 ", False),  # a device drops the trailing space
        (" trA-key-NEW-1", False),
        ("trA key NEW 1", True),  # a space inside is part of the key
    ],
)
def test_white_space_around_a_secret_is_refused(value: str, accepted: bool) -> None:
    got = resolved("transit-a", value, Location("rendered/aus1/aus1-br1.cfg", 120, 19))
    if accepted:
        assert got == value
        return
    assert isinstance(got, Problem) and got.kind == "bad-secret"
    assert str(got.location) == "rendered/aus1/aus1-br1.cfg:120:19"
    assert value.strip() not in got.message or not value.strip()


def test_the_journal_masks_what_it_says_never_which_device_did_it(tmp_path: Path) -> None:
    store = SecretStore({"k": "aus1-sp1-key"})
    journal = Journal(tmp_path / "j.jsonl", store, {"run": "r", "command": "push", "stage": "lab"})
    entry = journal.record("commit", "failed", device="aus1-sp1", detail="rejected aus1-sp1-key")
    journal.close()
    assert entry["device"] == "aus1-sp1" and entry["step"] == "commit"
    assert entry["detail"] == "rejected <<secret:k>>"


def test_an_encoding_error_says_no_character_of_the_value() -> None:
    try:
        "Pässwort-€uro-123".encode("latin-1")
    except UnicodeEncodeError as exc:
        said = describe(exc)
    assert "€" not in said and "\\u20ac" not in said and "position" not in said
    assert said.startswith("UnicodeEncodeError: ")


def _plan(*extra: str) -> tuple[int, str]:
    result = runner.invoke(app, ["plan", "--stage", "lab", *extra])
    return result.exit_code, result.output


def test_a_secret_equal_to_a_device_name_is_refused_without_saying_which(
    lab: Lab, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEETME_SECRET_BGP_AUS1_BR1", "aus1-sp2")
    code, output = _plan()
    assert code == 2
    said = "secret 'bgp-aus1-br1' (from MEETME_SECRET_BGP_AUS1_BR1) is also a word of a rendered"
    assert said in output
    assert "no device was touched" in output and lab.untouched("aus1-sp1")


def test_a_secret_that_is_a_word_of_the_configs_is_refused(
    lab: Lab, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEETME_SECRET_BGP_AUS1_BR1", "neighbor")  # every BGP line holds it
    code, output = _plan()
    assert code == 2
    assert "secret 'bgp-aus1-br1' (from MEETME_SECRET_BGP_AUS1_BR1) is also a word" in output


def test_a_secret_inside_a_longer_word_is_accepted(
    lab: Lab, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mask finds a value only as a whole token: `network-adm` inside the configs'
    `network-admin` is no word of them."""
    assert "role network-admin" in (lab.repo / "rendered/aus1/aus1-sp1.cfg").read_text()
    monkeypatch.setenv("MEETME_SECRET_BGP_AUS1_BR1", "network-adm")
    code, output = _plan()
    assert code == 0 and "is also a word" not in output, output


@pytest.mark.parametrize(
    ("fixture", "login", "refused"),
    [
        ("nx_lab", "Pässwort-€uro-123", True),  # € is not Latin-1
        ("nx_lab", "Pässwort-äuro-123", False),  # ä is
        ("lab", "Pässwort-€uro-123", False),  # EOS: eAPI's login takes UTF-8
        ("mixed_lab", "Pässwort-€uro-123", True),  # the EOS spine first, the NX-OS leaf too
    ],
)
def test_a_login_the_driver_cannot_send_is_refused_before_any_connection(
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    fixture: str,
    login: str,
    refused: bool,
) -> None:
    lab: Lab = request.getfixturevalue(fixture)
    monkeypatch.setenv("MEETME_SECRET_LAB_ADMIN", login)
    code, output = _plan()
    said = "is the login of a nxos device, whose API takes latin-1 characters only"
    assert (said in output) is refused, output
    assert "€" not in output and "Pässwort" not in output
    if refused:
        assert code == 2 and all(lab.untouched(name) for name in lab.emulators)
    else:  # tried, and refused by the device: not the password it knows
        assert code == 1


def test_a_rotated_key_shows_neither_the_old_nor_the_new_value(
    lab: Lab, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """After a push, the device runs the old key: a plan of a new one diffs the two, and the
    old one, which the run's masks do not know, is hidden too (terminal and journal)."""
    from emulator.lab import BGP_KEY

    pushed = runner.invoke(app, ["push", "--stage", "lab", "--device", "aus1-sp1"])
    assert pushed.exit_code == 0, pushed.output
    monkeypatch.setenv("MEETME_SECRET_BGP_AUS1_BR1", "bgp-Key-ROTATED-2027")
    journal = tmp_path / "rotate.jsonl"
    code, output = _plan("--device", "aus1-sp1", "--journal", str(journal))
    assert code == 0, output
    written = journal.read_text()
    for text in (output, written):
        assert BGP_KEY not in text and "bgp-Key-ROTATED-2027" not in text
        assert "password 0 <<secret:bgp-aus1-br1>>" in text
        assert f"password 0 {HIDDEN}" in text
