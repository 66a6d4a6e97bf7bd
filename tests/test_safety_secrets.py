"""Issue #9, secrets: a short key is refused, masking never reveals where a key's letters stand,
and a push resolves a placeholder only where the platform's templates print a secret.

The push and plan tests run the real NAPALM `eos` driver against the emulated spines of
tests/emulator (aus1-sp1 carries `neighbor X password 0 <<secret:bgp-aus1-br1>>`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from emulator.lab import (
    ADMIN_PASSWORD,
    BGP_KEY,
    SPINES,
    Lab,
    example_models,
)
from emulator.lab import journal as journal_records
from meetme.deploy.engine import Engine, describe
from meetme.deploy.inventory import Credentials, DeviceEntry, Settings
from meetme.deploy.journal import Journal
from meetme.deploy.secret_positions import SECRET_LINES, misplaced_placeholders
from meetme.deploy.secret_store import SecretStore
from meetme.deploy.targets import Target
from meetme.generators.render import render_device
from typer.testing import CliRunner

from meetme.cli import app

runner = CliRunner()
KEY_ENV = "MEETME_SECRET_BGP_AUS1_BR1"


def cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, [*args, "--stage", "lab"])
    return result.exit_code, result.output


def whole(value: str) -> re.Pattern[str]:
    """`value` standing as a token of its own, as a reader would spot it."""
    return re.compile(rf"(?<![\w]){re.escape(value)}(?![\w])")


# ---- short secrets ------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["eos", "7-chars"])
def test_a_short_bgp_key_stops_the_run_before_any_device(
    lab: Lab, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv(KEY_ENV, value)
    code, output = cli("push", "--journal", "push.jsonl")
    assert code == 2, output
    assert (
        "rendered/aus1/aus1-sp1.cfg:" in output
        and "error[short-secret]: secret 'bgp-aus1-br1' (from MEETME_SECRET_BGP_AUS1_BR1) "
        "is shorter than 8 characters"
        in output
    )
    assert not whole(value).search(output)  # the value is never echoed
    assert all(lab.untouched(n) for n in SPINES)
    assert not (lab.repo / "push.jsonl").exists()


def test_an_eight_character_key_is_accepted(lab: Lab, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "8-chars!")
    code, output = cli("plan", "--device", "aus1-sp1")
    assert code == 0, output
    assert "<<secret:bgp-aus1-br1>>" in output and "8-chars!" not in output


# ---- whole-value masking, where an engineer reads it --------------------------------------------


def test_a_key_that_begins_an_ordinary_word_is_masked_only_where_it_is_the_key(
    lab: Lab, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`descript` is the key; every `description` line of the diff must stay readable, and the
    one password line must show the placeholder: in the terminal and in the journal."""
    monkeypatch.setenv(KEY_ENV, "descript")
    code, output = cli("push", "--device", "aus1-sp1", "--journal", "push.jsonl")
    assert code == 0, output
    assert "password 0 descript" in lab.emulators["aus1-sp1"].running_config()
    peer = lab.models["aus1-sp1"].bgp.neighbors[0].address
    descriptions = lab.rendered("aus1-sp1").read_text().count(" description ")
    assert descriptions > 0
    for shown in (output, json.dumps(journal_records(lab.repo / "push.jsonl"))):
        assert f"neighbor {peer} password 0 <<secret:bgp-aus1-br1>>" in shown
        assert "<<secret:bgp-aus1-br1>>ion" not in shown
        assert not whole("descript").search(shown)
    diff = next(r["diff"] for r in journal_records(lab.repo / "push.jsonl") if r.get("diff"))
    assert diff.count(" description ") == descriptions  # every description line, intact


def test_journal_lines_mask_whole_values_and_stay_json(tmp_path: Path) -> None:
    store = SecretStore({"bgp-r": "router12"})
    path = tmp_path / "j.jsonl"
    journal = Journal(path, store, {"run": "r", "command": "push", "stage": "lab"})
    journal.record(
        "load",
        "failed",
        device="router123",
        detail="% Invalid input at 'password 0 router12' on router123",
        body=json.dumps({"cmds": ["hostname router123", "password 0 router12\nrouter12"]}),
        lines=["router12", "router12_b"],
    )
    journal.close()
    [line] = path.read_text().splitlines()
    assert not whole("router12").search(line) and "router12\\n" not in line
    record = json.loads(line)
    assert record["device"] == "router123"
    assert record["detail"] == "% Invalid input at 'password 0 <<secret:bgp-r>>' on router123"
    assert json.loads(record["body"]) == {
        "cmds": ["hostname router123", "password 0 <<secret:bgp-r>>\n<<secret:bgp-r>>"]
    }
    assert record["lines"] == ["<<secret:bgp-r>>", "router12_b"]


def test_an_error_text_is_masked_before_it_is_cut_or_respaced() -> None:
    value = "Key  with-2-spaces"  # folding the two spaces first would hide it from the mask
    store = SecretStore({"k": value})
    error = RuntimeError("x" * 480 + f" password {value} rejected")
    shown = describe(error, store.mask)
    assert len(shown) <= 500 and "Key" not in shown and "spaces" not in shown
    assert describe(RuntimeError(f"bad key {value}"), store.mask) == (
        "RuntimeError: bad key <<secret:k>>"
    )


# ---- the push-side fence: placeholders only where the templates print secrets -------------------


def rendered_example() -> dict[str, tuple[str, str]]:
    """Hostname -> (platform, rendered text) of every device of the example."""
    return {
        name: (model.platform, render_device(model)) for name, model in example_models().items()
    }


def test_every_placeholder_the_templates_print_is_in_the_table() -> None:
    placed: dict[str, int] = {}
    for name, (platform, text) in rendered_example().items():
        assert misplaced_placeholders(text, platform) == [], name
        placed[platform] = placed.get(platform, 0) + text.count("<<secret:")
    assert set(placed) == set(SECRET_LINES) and all(placed.values())  # each platform has some


# A rendered line with a placeholder where the templates never print one, per platform; the
# line is inserted after `anchor` (a line of that platform's rendered example).
HOSTILE = {
    "arista_eos": (
        "router bgp ",
        [
            "   neighbor 10.1.0.1 description <<secret:bgp-aus1-br1>>",
            "interface Ethernet<<secret:bgp-aus1-br1>>",
            "   description password 0 <<secret:bgp-aus1-br1>>",
            "   neighbor 10.1.0.1 password 0 <<secret:bgp-aus1-br1>> extra",
            "   neighbor 10.1.0.1 password 0 <<secret:a>><<secret:b>>",
            "   description x\u2028   neighbor 10.1.0.1 password 0 <<secret:bgp-aus1-br1>>",
            "   description x\r   neighbor 10.1.0.1 password 0 <<secret:bgp-aus1-br1>>",
        ],
    ),
    "cisco_iosxr": (
        "router bgp ",
        [
            " password clear <<secret:ix-syd-rs>>",  # under `router bgp`, not a neighbor
            "  description <<secret:ix-syd-rs>>",
            " secret 10 <<secret:ix-syd-rs>>",  # under `router bgp`, not a username
        ],
    ),
    "cisco_nxos": (
        "router bgp ",
        ["  password 0 <<secret:er-syd-md5>>", "  description <<secret:er-syd-md5>>"],
    ),
    "nvidia_nvue": (
        "    router:",
        [
            "      password: '<<secret:gcp-ic-md5>>'",  # under `router:`, not a neighbor
            "      hashed-password: '<<secret:gcp-ic-md5>>'",  # nor a user
            "      description: '<<secret:gcp-ic-md5>>'",
            "      password: <<secret:gcp-ic-md5>>",
        ],
    ),
}


@pytest.mark.parametrize(
    ("platform", "hostile"),
    [(p, line) for p, (_, lines) in HOSTILE.items() for line in lines],
)
def test_a_placeholder_outside_a_secret_position_is_found_at_its_line(
    platform: str, hostile: str
) -> None:
    anchor = HOSTILE[platform][0]
    text = next(t for p, t in rendered_example().values() if p == platform and anchor in t)
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith(anchor)) + 1
    found = misplaced_placeholders("\n".join([*lines[:at], hostile, *lines[at:]]), platform)
    column = hostile.find("<<secret:") + 1
    assert [(m.line, m.column) for m in found][:1] == [(at + 1, column)]
    assert {m.line for m in found} == {at + 1}


def test_a_placeholder_in_a_description_is_refused_before_any_connection(lab: Lab) -> None:
    path = lab.rendered("aus1-sp2")
    lines = path.read_text().split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("   description "))
    lines[at] = "   description uplink <<secret:bgp-aus1-br1>>"
    path.write_text("\n".join(lines))
    for command in ("push", "plan"):
        code, output = cli(command, "--journal", "run.jsonl")
        assert code == 2, output
        assert (
            f"rendered/aus1/aus1-sp2.cfg:{at + 1}:23: error[misplaced-secret]: aus1-sp2: the "
            "placeholder of secret 'bgp-aus1-br1' stands where no secret belongs" in output
        )
        assert BGP_KEY not in output
    assert all(lab.untouched(n) for n in SPINES)
    assert not (lab.repo / "run.jsonl").exists()


def test_the_login_password_is_never_resolved_into_a_config(lab: Lab) -> None:
    """An intent that keys a BGP session with the inventory's login secret would write the
    login into the device's configuration, at a legitimate secret position."""
    path = lab.rendered("aus1-sp1")
    path.write_text(path.read_text().replace("<<secret:bgp-aus1-br1>>", "<<secret:lab-admin>>"))
    code, output = cli("push")
    assert code == 2, output
    assert "error[login-secret-in-config]: aus1-sp1: secret 'lab-admin' is a login" in output
    assert ADMIN_PASSWORD not in output
    assert all(lab.untouched(n) for n in SPINES)


def test_the_engine_itself_refuses_a_misplaced_placeholder_without_connecting() -> None:
    model = example_models()["aus1-sp1"]
    entry = DeviceEntry.model_validate(
        {"host": "127.0.0.1", "driver": "eos", "stage": "lab", "wave": 1}
    )
    text = "hostname x\ninterface Ethernet1/1\n   description <<secret:p>>\n"
    target = Target(
        "aus1-sp1",
        entry,
        model,
        Path("x.cfg"),
        text,
        Credentials(username="u", password="secret:p"),
    )
    store = SecretStore({"p": "pw-value-long"})
    journal = Journal(None, store, {"run": "t", "command": "push", "stage": "lab"})
    opened: list[str] = []

    def factory(t: Target, username: str, password: str, timeout: int) -> Any:
        opened.append(t.name)
        raise AssertionError("connected")

    engine = Engine([target], Settings(), store, journal, factory, sleep=lambda s: None)
    [result] = engine.push()
    assert opened == [] and result.status == "failed"
    assert result.detail == (
        "load: refused: a secret placeholder stands where no secret belongs: line 3 (p)"
    )
    assert "pw-value-long" not in json.dumps(journal.records)
