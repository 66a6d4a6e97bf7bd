"""`meetme schema`: the JSON Schema editors use to complete and flag intent as it is typed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import EXAMPLE_INTENT
from typer.testing import CliRunner

from meetme.cli import app
from meetme.intent.loader import _merge, intent_files
from meetme.intent.yaml_source import SourceFile, read_file

runner = CliRunner()


def schema(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["schema", *args])
    assert result.exit_code == 0, result.output
    loaded: dict[str, Any] = json.loads(result.stdout)
    return loaded


def validator(document_schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    jsonschema.Draft202012Validator.check_schema(document_schema)
    return jsonschema.Draft202012Validator(document_schema)


def example_files() -> list[SourceFile]:
    """Each example file as an editor sees it: YAML 1.2 data (meetme's reader)."""
    sources = []
    for path in intent_files(EXAMPLE_INTENT):
        source, problems = read_file(path, path.name)
        assert source is not None and not problems
        sources.append(source)
    return sources


@pytest.mark.parametrize("source", example_files(), ids=lambda s: s.name)
def test_every_example_file_is_valid_on_its_own(source: SourceFile) -> None:
    errors = list(validator(schema()).iter_errors(source.data))
    assert not errors, [e.message for e in errors]


def test_the_merged_example_is_valid_against_the_whole_schema() -> None:
    problems: list[Any] = []
    merged, _, _ = _merge(example_files(), problems)
    assert not problems
    errors = list(validator(schema("--whole")).iter_errors(merged))
    assert not errors, [e.message for e in errors]


def test_misspelled_key_is_rejected() -> None:
    device = {
        "id": 1,
        "role": "border",
        "platfrom": "cisco_iosxr",  # the typo
        "model": "8201-32FH",
        "room": "aus1-mdf-a",
        "rack": "mdf-a-r01",
        "management": "192.168.10.11/24",
    }
    document = {"sites": {"aus1": {"devices": {"aus1-br1": device}}}}
    messages = [e.message for e in validator(schema()).iter_errors(document)]
    assert any("'platfrom' was unexpected" in m for m in messages), messages
    assert any("'platform' is a required property" in m for m in messages), messages
    device["platform"] = device.pop("platfrom")
    assert validator(schema()).is_valid(document)


def test_per_file_schema_requires_only_what_one_file_must_hold() -> None:
    partial, whole = validator(schema()), validator(schema("--whole"))
    rooms_only = {"sites": {"aus1": {"rooms": {}}}}
    assert partial.is_valid(rooms_only)  # organisation and pools live in other files
    assert not whole.is_valid(rooms_only)
    bad_room = {"sites": {"aus1": {"rooms": {"r1": {"kind": "mdf"}}}}}
    assert not partial.is_valid(bad_room)  # a room is written in one place: all of it
    waiver = {"rule": "PHY-001", "object": "sites", "reason": "r", "owner": "o"}
    assert not partial.is_valid({"waivers": [waiver]})  # no expiry
    assert partial.is_valid({"waivers": [{**waiver, "expires": "2030-01-31"}]})


def test_out_writes_the_schema_file(tmp_path: Path) -> None:
    target = tmp_path / ".meetme/intent.schema.json"
    result = runner.invoke(app, ["schema", "--out", str(target)])
    assert result.exit_code == 0
    assert json.loads(target.read_text()) == schema()
