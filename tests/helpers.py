"""Helpers shared by several test modules: the CLI runner, the golden files' pins, rendering
into a snapshot, git in a throw-away repository, a folder's tree hash, reading rendered
Cisco-style configs back, validating rendered NVUE files against the 5.16 object model (with
conftest.py's fixture `forbid_schema`), resolving a secret."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from ciscoconfparse2 import CiscoConfParse
from meetme.deploy.secret_store import env_name, resolve
from pydantic import BaseModel, ValidationError
from typer.testing import CliRunner

from meetme.cli import app
from meetme.core.problems import IntentError, Location, Problem

runner = CliRunner()


# --- the golden files (tests/golden/): each pins one rendered file of the example -------------

# rendered file -> the platform and role it pins (test_golden.py, test_platform_matrix.py)
PINNED = {
    "aus1/aus1-br1.cfg": "cisco_iosxr border",
    "aus1/aus1-sp1.cfg": "arista_eos spine",
    "aus1/aus1-lf1.yaml": "nvidia_nvue leaf",
    "aus1/aus1-lf3.cfg": "cisco_nxos leaf",
    "aus1/aus1-bl1.cfg": "arista_eos border leaf (AWS)",
    "aus1/aus1-bl3.cfg": "cisco_nxos border leaf (Azure)",
    "aus1/aus1-bl5.yaml": "nvidia_nvue border leaf (Google)",
    # mel1: three tiers in two pods, EOS borders with the handoff's border side
    "mel1/mel1-br1.cfg": "mel1 arista_eos border (edge and handoff)",
    "mel1/mel1-ss1.cfg": "mel1 arista_eos super-spine (EVPN route server between pods)",
    "mel1/mel1-sp21.cfg": "mel1 arista_eos pod-2 spine",
    "mel1/mel1-lf101.cfg": "mel1 cisco_nxos pod-1 leaf (vPC)",
    "mel1/mel1-bl1.cfg": "mel1 cisco_nxos border leaf (breakout)",
}


# --- the CLI's output folders ---------------------------------------------------------------


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name not in (".meetme-rendered", ".meetme-hashes.json")
    }


def changed_files(before: dict[str, bytes], after: dict[str, bytes]) -> set[str]:
    return {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}


def render(repo: Path) -> dict[str, bytes]:
    result = runner.invoke(app, ["render"])
    assert result.exit_code == 0, result.output
    return snapshot(repo / "rendered")


def tree_hash(path: Path) -> str:
    """Every entry under `path` (never following links): name, type, mode, bytes or target."""
    digest = hashlib.sha256()

    def visit(current: Path, name: str) -> None:
        info = os.lstat(current)
        digest.update(f"{name}\0{info.st_mode}\0".encode())
        if current.is_symlink():
            digest.update(os.readlink(current).encode())
        elif current.is_dir():
            for child in sorted(os.listdir(current)):
                visit(current / child, f"{name}/{child}")
        else:
            digest.update(current.read_bytes())

    visit(path, ".")
    return digest.hexdigest()


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


# --- rendered Cisco-style configs read back ---------------------------------------------------


def block(parse: CiscoConfParse, line: str) -> list[str]:
    """The lines under the one top-level `line` (nested lines indented as printed)."""
    (obj,) = [o for o in parse.objs if o.indent == 0 and o.text == line]
    base = obj.indent
    return [c.text[base:].rstrip() for c in obj.all_children]


def under(parse: CiscoConfParse, parent: str, child: str) -> list[str]:
    """Stripped lines under `child` inside the top-level `parent` (router bgp ... family)."""
    (obj,) = [o for o in parse.objs if o.indent == 0 and o.text == parent]
    (sub,) = [c for c in obj.children if c.text.strip() == child]
    return [c.text.strip() for c in sub.all_children]


# --- rendered NVUE files against the 5.16 object model (conftest.forbid_schema) -----------------

Tree = dict[str, Any]


class StrictLoader(yaml.SafeLoader):
    """safe_load that fails on a repeated key instead of silently keeping the last one."""


def _mapping_without_duplicates(loader: StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key)
    return loader.construct_mapping(node)


StrictLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_duplicates
)


def set_tree(text: str) -> Tree:
    """The NVUE tree under the single `- set:` of a startup.yaml file."""
    document = yaml.load(text, Loader=StrictLoader)
    assert isinstance(document, list) and len(document) == 1, "expected one list item"
    assert list(document[0]) == ["set"], "expected the item to be `set:`"
    tree = document[0]["set"]
    assert isinstance(tree, dict)
    return tree


def validate(schema: type[BaseModel], hostname: str, text: str) -> Tree:
    tree = set_tree(text)
    try:
        schema.model_validate(tree)
    except ValidationError as error:  # name the device: the pydantic message does not
        pytest.fail(f"{hostname}: not valid NVUE 5.16:\n{error}")
    return tree


# --- secrets --------------------------------------------------------------------------------


def resolved(name: str, value: str, needed_at: Location) -> str | Problem:
    """The value `resolve` gives for a secret set in the environment, or its one problem."""
    where = {name: needed_at}
    try:
        return resolve(where, where, None, {env_name(name): value}).get(name)
    except IntentError as caught:
        [problem] = caught.problems
        return problem
