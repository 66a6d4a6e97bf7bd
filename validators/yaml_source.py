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


# Mappings keyed by the name of what they hold: a repeated key there is a name defined twice.
NAMED_COLLECTIONS = {
    "sites": "site",
    "rooms": "room",
    "racks": "rack",
    "devices": "device",
    "cross_connects": "cross-connect",
    "redundancy_groups": "redundancy group",
    "tenants": "tenant",
    "attachments": "attachment",
}
# The peering collections of a site (sites.NAME.peering.<collection>) merge across files too.
PEERING_COLLECTIONS = {
    "ixes": "IX",
    "transits": "transit",
    "pnis": "PNI",
    "aws": "AWS on-ramp",
    "azure": "ExpressRoute circuit",
    "gcp": "Google interconnect",
}


@dataclass
class SourceFile:
    """One intent file: its data and the position of every path inside it.

    `positions` holds where each key (or list item) is written, `value_positions` where its
    value starts: a wrong value is reported at the value, a missing or unknown key at the key.
    """

    name: str
    data: Any
    positions: dict[Path_, Location] = field(default_factory=dict)
    value_positions: dict[Path_, Location] = field(default_factory=dict)


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
        return None, [
            Problem(
                _second_document_start(text, display_name),
                "a second YAML document starts here ('---'); an intent file holds one "
                "document: remove the '---' line or move what follows into its own file",
                "multi-document",
            )
        ]
    builder = _Builder(display_name)
    data = builder.build(documents[0], ())
    builder.positions[()] = Location(display_name, 1, 1)
    builder.value_positions[()] = _loc(display_name, documents[0].start_mark)
    source = SourceFile(display_name, data, builder.positions, builder.value_positions)
    return source, builder.problems


def _second_document_start(text: str, name: str) -> Location:
    """The '---' (or first token) of the second document, where the reader should look."""
    starts = [
        Location(name, event.start_mark.line + 1, event.start_mark.column + 1)
        for event in yaml.parse(text, Loader=yaml.SafeLoader)
        if isinstance(event, yaml.DocumentStartEvent) and event.start_mark is not None
    ]
    return starts[1]


def _tab_indentation(text: str, name: str) -> Iterator[Problem]:
    for number, line in enumerate(text.splitlines(), start=1):
        indent = len(line) - len(line.lstrip(" \t"))
        column = line.find("\t", 0, indent)
        if column >= 0 and line.strip():
            yield Problem(
                Location(name, number, column + 1),
                "tab character in the indentation; YAML indents with spaces only: "
                "replace the tab with spaces",
                "yaml-tab",
            )


# What usually causes PyYAML's terse complaints, and what to do about it.
_SYNTAX_HINTS = (
    ("flow mapping", "is the '{' closed with '}', and are its entries separated by ','?"),
    ("flow sequence", "is the '[' closed with ']', and are its items separated by ','?"),
    ("quoted scalar", "is the quote closed on the same value?"),
    (
        "mapping values are not allowed",
        "quote a value that contains ': ', or check the indentation of this line",
    ),
    ("expected <block end>", "check the indentation of this line against the lines above"),
    ("cannot start any token", "quote the value"),
    ("undefined alias", "quote a value that starts with '*'"),
)


def _syntax_problem(exc: yaml.MarkedYAMLError, name: str) -> Problem:
    mark = exc.problem_mark or exc.context_mark
    where = _loc(name, mark) if mark is not None else Location(name, 1, 1)
    what = exc.problem or exc.context or "invalid YAML"
    if exc.context and exc.problem:
        context = exc.context
        if exc.context_mark is not None:
            start = exc.context_mark
            context += f" that starts at line {start.line + 1}, column {start.column + 1}"
        what = f"{exc.problem} ({context})"
    hints = [hint for needle, hint in _SYNTAX_HINTS if needle in f"{exc.problem} {exc.context}"]
    if hints:
        what += f"; {hints[0]}"
    return Problem(where, f"YAML syntax error: {what}", "yaml-syntax")


def _loc(name: str, mark: yaml.Mark) -> Location:
    return Location(name, mark.line + 1, mark.column + 1)


class _Builder:
    """Turns a composed node tree into dicts, lists and scalars, recording positions."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.positions: dict[Path_, Location] = {}
        self.value_positions: dict[Path_, Location] = {}
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
                self.value_positions[(*path, index)] = _loc(self.name, item.start_mark)
                items.append(self.build(item, (*path, index)))
            return items
        assert isinstance(node, yaml.ScalarNode)
        return self._scalar(node)

    def _mapping(self, node: yaml.MappingNode, path: Path_) -> dict[str, Any]:
        result: dict[str, Any] = {}
        first_seen: dict[str, yaml.Node] = {}
        merged_in: list[yaml.Node] = []
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                self.problem(
                    key_node,
                    "YAML merge keys (<<) are not supported; write the keys out here",
                    "yaml-merge",
                )
                merged_in.append(value_node)
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                self.problem(key_node, "a mapping key must be a plain name", "yaml-key")
                continue
            key = str(key_node.value)
            if key in first_seen:
                self.problem(key_node, self._duplicate(key, first_seen[key], path), "duplicate-key")
                continue
            first_seen[key] = key_node
            self.positions[(*path, key)] = _loc(self.name, key_node.start_mark)
            self.value_positions[(*path, key)] = _loc(self.name, value_node.start_mark)
            result[key] = self.build(value_node, (*path, key))
        # still take the merged keys in, so the error is not followed by 'missing key' noise
        for merged in merged_in:
            sources = merged.value if isinstance(merged, yaml.SequenceNode) else [merged]
            for source in sources:
                if not isinstance(source, yaml.MappingNode):
                    continue
                # its own problems are reported where the anchor is written
                copy = _Builder(self.name)
                for key, value in copy._mapping(source, path).items():
                    if key in result:
                        continue
                    result[key] = value
                    for mine, theirs in (
                        (self.positions, copy.positions),
                        (self.value_positions, copy.value_positions),
                    ):
                        mine.update(
                            (p, loc)
                            for p, loc in theirs.items()
                            if p[: len(path) + 1] == (*path, key)
                        )
        return result

    def _duplicate(self, key: str, first: yaml.Node, path: Path_) -> str:
        # PyYAML alone would silently keep the last one; here the run fails instead
        at = f"line {first.start_mark.line + 1}, column {first.start_mark.column + 1}"
        noun = NAMED_COLLECTIONS.get(str(path[-1])) if path else None
        if noun is not None and (path[-1] == "sites" or len(path) == 3):
            return (
                f"{noun} '{key}' is defined twice in this file (first at {at}); "
                f"rename or remove one"
            )
        return f"key '{key}' is written twice in this mapping (first at {at}); keep one"

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
            meaning = "true" if text.lower() in ("yes", "on", "y") else "false"
            self.problem(
                node,
                f"{text} is the boolean {meaning} in YAML 1.1, not the text '{text}'; "
                f'quote it: "{text}"',
                "yaml-ambiguous",
            )
            return text
        if node.tag == INT_TAG:
            return self._integer(node)
        if node.tag == FLOAT_TAG:
            try:
                return float(text.replace("_", ""))
            except ValueError:
                self.problem(
                    node,
                    f"'{text}' is not a number YAML 1.2 understands; quote it",
                    "yaml-ambiguous",
                )
                return text
        # timestamps and anything else stay text; the schema decides what they mean
        return text

    def _integer(self, node: yaml.ScalarNode) -> Any:
        text = node.value
        if ":" in text:
            self.problem(
                node,
                f"{text} is the base-60 number {_sexagesimal(text)} in YAML 1.1, not the text "
                f"'{text}'; quote it: \"{text}\"",
                "yaml-ambiguous",
            )
            return text
        if _OCTAL_LOOKING.fullmatch(text) and text.strip("+-0_"):
            sign = "-" if text.startswith("-") else ""
            decimal = sign + text.replace("_", "").lstrip("+-").lstrip("0")
            octal = _octal(text)
            read_as = f", i.e. {octal}" if octal is not None else ""
            self.problem(
                node,
                f"{text} has a leading zero: YAML 1.1 reads it as octal{read_as}; "
                f'write {decimal} for the number, or quote it ("{text}") for text',
                "yaml-ambiguous",
            )
            return text
        try:
            return int(text.replace("_", ""), 0)
        except ValueError:
            self.problem(
                node, f"'{text}' is not an integer YAML 1.2 understands; quote it", "yaml-ambiguous"
            )
            return text


def _sexagesimal(text: str) -> int:
    value = 0
    for part in text.lstrip("+-").replace("_", "").split(":"):
        value = value * 60 + int(part)
    return -value if text.startswith("-") else value


def _octal(text: str) -> int | None:
    try:
        return int(text.replace("_", ""), 8)
    except ValueError:  # 09 holds a digit octal has not: YAML 1.1 reads it as text or fails
        return None
