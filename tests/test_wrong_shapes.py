"""A value of the wrong shape is one wrong-type problem at its own line, never a crash.

The name checks (meetme/intent/references.py) read the raw YAML before the schema does, so
they meet every shape a careless edit can leave: a number where a list of rack names belongs
crashed `meetme lint` (exit 3, "internal error"), and a string was read letter by letter, one
"unknown rack 'd'" per character, before the schema said what was wrong.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import EXAMPLE_INTENT, line_of, replace_in
from pydantic import BaseModel
from typer.testing import CliRunner

from meetme.cli import app
from meetme.core.problems import IntentError
from meetme.intent.loader import load_intent

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


def _schema_keys() -> set[str]:
    """Every key the intent schema defines (field names and aliases): any other mapping key
    in the example is a name the architect chose."""
    keys: set[str] = set()
    pending: list[type[BaseModel]] = [BaseModel]
    while pending:
        for model in pending.pop().__subclasses__():
            pending.append(model)
            if model.__module__.startswith("meetme.intent"):
                for name, field in model.model_fields.items():
                    keys.update(k for k in (name, field.alias) if k)
    return keys


def _shapes() -> list[tuple[Path, tuple[Any, ...], Any]]:
    """(file, path, wrong value) for one node of each kind in the example (a kind: its key
    path with chosen names and list positions generalised): a list or mapping given as a
    number and as text, a single value given as a list."""
    keys = _schema_keys()
    first: dict[tuple[str, ...], tuple[Path, tuple[Any, ...], Any]] = {}
    for file in sorted(EXAMPLE_INTENT.rglob("*.yaml")):
        pending: list[tuple[tuple[Any, ...], tuple[str, ...], Any]] = [
            ((), (), yaml.safe_load(file.read_text()))
        ]
        while pending:
            path, kind, node = pending.pop()
            if path:
                first.setdefault(kind, (file, path, node))
            if isinstance(node, dict):
                pending += [
                    ((*path, k), (*kind, k if k in keys else "*"), v) for k, v in node.items()
                ]
            elif isinstance(node, list):
                pending += [((*path, i), (*kind, "#"), v) for i, v in enumerate(node)]
    cases = []
    for file, path, node in first.values():
        wrong: list[Any] = [7, "x"] if isinstance(node, dict | list) else [["x"]]
        cases += [(file, path, value) for value in wrong]
    return cases


def test_every_node_of_the_example_in_a_wrong_shape_is_reported_in_its_file(
    tmp_path: Path,
) -> None:
    """Each kind of node of the example intent given a wrong shape: the intent is unusable,
    with every problem at a file, line and column, at least one in the edited file, and no
    other exception (a crash on a shape the name checks did not expect)."""
    shutil.copytree(EXAMPLE_INTENT, tmp_path / "intent")
    cases = _shapes()
    assert len(cases) > 300  # the example's every kind of node, not a handful
    for file, path, value in cases:
        target = tmp_path / "intent" / file.relative_to(EXAMPLE_INTENT)
        data = yaml.safe_load(file.read_text())
        node = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        target.write_text(yaml.safe_dump(data, sort_keys=False))
        with pytest.raises(IntentError) as raised:
            load_intent(tmp_path / "intent")
        problems = raised.value.problems
        assert all(p.location.line >= 1 and p.location.column >= 1 for p in problems), path
        assert any(Path(p.location.file).name == file.name for p in problems), (path, problems)
        shutil.copy(file, target)
