"""A value of the wrong shape is one wrong-type problem at its own line, never a crash.

The name checks (meetme/intent/references.py) read the raw YAML before the schema does, so
they meet every shape a careless edit can leave: a number where a list of rack names belongs
crashed `meetme lint` (exit 3, "internal error"), and a string was read letter by letter, one
"unknown rack 'd'" per character, before the schema said what was wrong.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import line_of, replace_in
from typer.testing import CliRunner

from meetme.cli import app

TENANTS = Path("intent/aus1/tenants.yaml")
NETWORK = "gpu-a-compute-3: {vrf: gpu-a, vlan: 103, l2vni: 10103, gateway_v4: 10.50.3.1/24, "
WHERE = "sites.aus1.tenants.gpu-tenant-a.networks.gpu-a-compute-3"


@pytest.mark.parametrize(
    ("key", "value", "got"),
    [
        ("racks", "7", "got the number 7"),
        ("racks", "dh1-r10", "got 'dh1-r10'"),
        ("leaves", "7", "got the number 7"),
        ("leaves", "aus1-lf1", "got 'aus1-lf1'"),
    ],
)
def test_a_name_list_given_as_one_value_is_one_problem_at_its_line(
    example: Path, key: str, value: str, got: str
) -> None:
    replace_in(
        example / TENANTS, NETWORK + "racks: [dh1-r10, dh1-r11]}", f"{NETWORK}{key}: {value}}}"
    )
    line = line_of(example / TENANTS, f"{key}: {value}}}")
    result = CliRunner().invoke(app, ["lint"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 2, result.output
    problems = [x for x in result.stderr.splitlines() if ": error[" in x]
    assert len(problems) == 1, result.stderr
    assert problems[0].startswith(f"{TENANTS}:{line}:"), problems
    assert (
        f"error[wrong-type]: sites.aus1.tenants.gpu-tenant-a.networks.gpu-a-compute-3.{key}"
        in problems[0]
    )
    assert got in problems[0] and "unknown" not in result.stderr
