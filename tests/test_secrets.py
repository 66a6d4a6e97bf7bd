"""Secrets are referenced by name: no value from the environment or a secrets file ever
reaches rendered/, while every keyed session carries a clearly marked placeholder."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cli import runner, snapshot

from meetme.cli import app
from meetme.secret_refs import PLACEHOLDER_RE

VALUES = {
    "transit-a": "Tr4nsit-A-s3cret",
    "aws-dx-aus1": "aws-md5-value-0001",
    "ix-syd-rs": "rs-key-value-0002",
}


def test_rendered_configs_carry_placeholders_never_values(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in VALUES.items():
        monkeypatch.setenv(f"MEETME_SECRET_{name.upper().replace('-', '_')}", value)
    secrets_file = example / "secrets.yaml"
    secrets_file.write_text("".join(f"{n}: {v}\n" for n, v in VALUES.items()))
    monkeypatch.setenv("MEETME_SECRETS_FILE", str(secrets_file))

    result = runner.invoke(app, ["render"])
    assert result.exit_code == 0, result.output
    files = snapshot(example / "rendered")
    text = b"\n".join(files.values()).decode()
    for value in VALUES.values():
        assert value not in text
    referenced = set(PLACEHOLDER_RE.findall(text))
    assert set(VALUES) <= referenced
    # the AWS key sits on the EOS border leaves that run the Direct Connect sessions
    assert "<<secret:aws-dx-aus1>>" in files["aus1/aus1-bl1.cfg"].decode()


def test_intent_rejects_a_literal_key(example: Path) -> None:
    peering = example / "intent/aus1/peering.yaml"
    text = peering.read_text()
    peering.write_text(text.replace('key: "secret:transit-a"', 'key: "hunter2"', 1))
    result = runner.invoke(app, ["lint"])
    assert result.exit_code == 2
    assert "a key must be a secret reference" in result.output
    assert "hunter2" not in result.output  # a pasted key is never echoed into CI logs


def test_every_external_session_of_the_example_carries_its_key_placeholder(
    example: Path,
) -> None:
    """The example keys every external session (AWS requires MD5; the others agreed one), and
    each rendered border config carries the placeholder of every key its sessions use."""
    from meetme.generators.render import output_name

    from meetme.pipeline import device_models, lint

    assert runner.invoke(app, ["render"]).exit_code == 0
    models = device_models(lint(example / "intent"))
    external = [(m, n) for m in models.values() for n in m.bgp.neighbors if n.external]
    assert {m.platform for m, _ in external} == {
        "cisco_iosxr",
        "arista_eos",
        "cisco_nxos",
        "nvidia_nvue",
    }
    for model, neighbor in external:
        assert neighbor.password is not None, f"{model.hostname} {neighbor.description}"
        text = (example / "rendered" / output_name(model)).read_text()
        assert neighbor.password in text, f"{model.hostname} {neighbor.description}"
