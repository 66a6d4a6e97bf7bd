"""What the `meetme push` tests share: running push against the lab stage, its status table,
the journal steps of a device that took its new config."""

from __future__ import annotations

import json

from emulator.lab import Lab
from typer.testing import CliRunner

from meetme.cli import app

runner = CliRunner()
APPLIED = [
    ("connect", "ok"),
    ("identity", "ok"),
    ("inspect", "ok"),
    ("load", "ok"),
    ("diff", "ok"),
    ("commit", "ok"),
    ("post-check", "ok"),
    ("post-check-links", "ok"),
    ("post-check-ports", "ok"),
    ("post-check-evpn", "ok"),
    ("confirm", "ok"),
]


def push(*extra: str) -> tuple[int, str]:
    result = runner.invoke(app, ["push", "--stage", "lab", "--journal", "push.jsonl", *extra])
    return result.exit_code, result.output


def statuses(*extra: str) -> tuple[int, dict[str, str]]:
    """`push --format json`: the exit code and each device's status."""
    args = ["--journal", "push.jsonl", "--format", "json", *extra]
    result = runner.invoke(app, ["push", "--stage", "lab", *args])
    table = json.loads(result.stdout[result.stdout.index("[") :])
    return result.exit_code, {r["device"]: r["status"] for r in table}


def is_new(lab: Lab, name: str) -> bool:
    """The device runs and has saved its rendered config."""
    emulator = lab.emulators[name]
    want = lab.expected(name)
    return emulator.running_config() == want and emulator.startup_config() == want
