"""Read intent YAML into plain data while keeping the file:line:column of every node.

PyYAML alone is too forgiving for a source of truth: it silently keeps the last of two duplicate
keys and reads YAML 1.1 words (`no`, `on`, `off`) as booleans, 010 as octal 8 and 1:30 as 90.
This reader composes PyYAML's node tree and constructs the values itself, so every one of these
becomes a problem with a position instead of a silent surprise.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from meetme.problems import Location, Problem

Path_ = tuple[str | int, ...]

BOOL_TAG = "tag:yaml.org,2002:bool"
INT_TAG = "tag:yaml.org,2002:int"
FLOAT_TAG = "tag:yaml.org,2002:float"
NULL_TAG = "tag:yaml.org,2002:null"
STR_TAG = "tag:yaml.org,2002:str"

_OCTAL_LOOKING = re.compile(r"[-+]?0[0-9_]+")


@dataclass
class SourceFile:
    """One intent file: its data and the position of every path inside it."""

    name: str
    data: Any
    positions: dict[Path_, Location] = field(default_factory=dict)


def read_file(path: Path, display_name: str) -> tuple[SourceFile | None, list[Problem]]:
    """Parse one file; return its data or the problems that stopped it."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        return None, [Problem(Location(display_name, 1, 1), f"not UTF-8 text: {exc}", "encoding")]
    tab_problems = list(_tab_indentation(text, display_name))
    if tab_problems:
        return None, tab_problems
    try:
        documents = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    except yaml.MarkedYAMLError as exc:
        return None, [_syntax_problem(exc, display_name)]
    if not documents:
        return SourceFile(display_name, None), []
    if len(documents) > 1:
        second = documents[1].start_mark
        return None, [
            Problem(
                _loc(display_name, second),
                "more than one YAML document in a file; split it into files",
                "yaml-syntax",
            )
        ]
    builder = _Builder(display_name)
    data = builder.build(documents[0], ())
    builder.positions[()] = Location(display_name, 1, 1)
    return SourceFile(display_name, data, builder.positions), builder.problems


def _tab_indentation(text: str, name: str) -> Iterator[Problem]:
    for number, line in enumerate(text.splitlines(), start=1):
        indent = len(line) - len(line.lstrip(" \t"))
        column = line.find("\t", 0, indent)
        if column >= 0 and line.strip():
            yield Problem(
                Location(name, number, column + 1),
                "tab character in indentation; YAML indents with spaces only",
                "yaml-tab",
            )


def _syntax_problem(exc: yaml.MarkedYAMLError, name: str) -> Problem:
    mark = exc.problem_mark or exc.context_mark
    where = _loc(name, mark) if mark is not None else Location(name, 1, 1)
    what = exc.problem or exc.context or "invalid YAML"
    if exc.context and exc.problem:
        what = f"{exc.problem} ({exc.context})"
    return Problem(where, f"YAML syntax error: {what}", "yaml-syntax")


def _loc(name: str, mark: yaml.Mark) -> Location:
    return Location(name, mark.line + 1, mark.column + 1)


class _Builder:
    """Turns a composed node tree into dicts, lists and scalars, recording positions."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.positions: dict[Path_, Location] = {}
        self.problems: list[Problem] = []

    def problem(self, node: yaml.Node, message: str, kind: str) -> None:
        self.problems.append(Problem(_loc(self.name, node.start_mark), message, kind))

    def build(self, node: yaml.Node, path: Path_) -> Any:
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, path)
        if isinstance(node, yaml.SequenceNode):
            items = []
            for index, item in enumerate(node.value):
                self.positions[(*path, index)] = _loc(self.name, item.start_mark)
                items.append(self.build(item, (*path, index)))
            return items
        assert isinstance(node, yaml.ScalarNode)
        return self._scalar(node)

    def _mapping(self, node: yaml.MappingNode, path: Path_) -> dict[str, Any]:
        result: dict[str, Any] = {}
        first_seen: dict[str, yaml.Node] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                self.problem(key_node, "YAML merge keys (<<) are not supported; repeat the keys",
                             "yaml-merge")
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                self.problem(key_node, "a mapping key must be a plain name", "yaml-key")
                continue
            key = str(key_node.value)
            if key in first_seen:
                first = first_seen[key].start_mark.line + 1
                self.problem(key_node, f"duplicate key '{key}' (first defined at line {first})",
                             "duplicate-key")
                continue
            first_seen[key] = key_node
            self.positions[(*path, key)] = _loc(self.name, key_node.start_mark)
            result[key] = self.build(value_node, (*path, key))
        return result

    def _scalar(self, node: yaml.ScalarNode) -> Any:
        text = node.value
        plain = node.style is None
        if not plain or node.tag == STR_TAG:
            return text
        if node.tag == NULL_TAG:
            return None
        if node.tag == BOOL_TAG:
            if text.lower() in ("true", "false"):
                return text.lower() == "true"
            self.problem(
                node,
                f"'{text}' is read as a boolean by YAML 1.1; write true or false, "
                f"or quote it ('{text}') if you mean the word",
                "yaml-ambiguous",
            )
            return text
        if node.tag == INT_TAG:
            return self._integer(node)
        if node.tag == FLOAT_TAG:
            try:
                return float(text.replace("_", ""))
            except ValueError:
                self.problem(node, f"'{text}' is not a number YAML 1.2 understands; quote it",
                             "yaml-ambiguous")
                return text
        # timestamps and anything else stay text; the schema decides what they mean
        return text

    def _integer(self, node: yaml.ScalarNode) -> Any:
        text = node.value
        if ":" in text:
            self.problem(
                node,
                f"'{text}' is a base-60 number in YAML 1.1; quote it if you mean text",
                "yaml-ambiguous",
            )
            return text
        if _OCTAL_LOOKING.fullmatch(text) and text.strip("+-0_"):
            self.problem(
                node,
                f"'{text}' has a leading zero, which YAML 1.1 reads as octal; "
                "drop the zero or quote it",
                "yaml-ambiguous",
            )
            return text
        try:
            return int(text.replace("_", ""), 0)
        except ValueError:
            self.problem(node, f"'{text}' is not an integer YAML 1.2 understands; quote it",
                         "yaml-ambiguous")
            return text
