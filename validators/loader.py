"""Load an intent folder: read every YAML file, merge, validate the schema, resolve names.

Every problem of a run is collected and raised at once as IntentError (exit 2).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from meetme.problems import IntentError, Location, Problem

from . import schema
from .references import check_references
from .schema import Intent, attach_paths
from .yaml_source import Path_, SourceFile, read_file


@dataclass
class LoadedIntent:
    intent: Intent
    positions: dict[Path_, Location]
    files: list[str]

    def where(self, path: Path_) -> Location:
        """The position of a path, or of its nearest written ancestor."""
        for end in range(len(path), -1, -1):
            found = self.positions.get(tuple(path[:end]))
            if found is not None:
                return found
        return Location(self.files[0] if self.files else "intent", 1, 1)


def intent_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())


def load_intent(folder: Path) -> LoadedIntent:
    folder = Path(folder)
    if not folder.is_dir():
        raise IntentError([Problem(Location(str(folder), 1, 1), "intent folder not found",
                                   "missing")])
    problems: list[Problem] = []
    sources: list[SourceFile] = []
    unreadable = False
    for path in intent_files(folder):
        source, file_problems = read_file(path, display_path(path))
        problems.extend(file_problems)
        unreadable = unreadable or source is None
        if source is not None and source.data is not None:
            sources.append(source)
    if unreadable:  # the merged tree would lack a file: later checks would mislead
        raise IntentError(problems)
    if not sources:
        raise IntentError([Problem(Location(str(folder), 1, 1),
                                   "no *.yaml or *.yml intent files found", "missing")])

    merged, positions = _merge(sources, problems)
    loaded_files = [s.name for s in sources]

    problems.extend(check_references(merged, positions))
    intent: Intent | None = None
    try:
        intent = Intent.model_validate(merged)
    except ValidationError as exc:
        # one problem per line: a YAML 1.1 'no' must not also be reported as a wrong type
        already = {(p.location.file, p.location.line) for p in problems}
        problems.extend(p for p in _schema_problems(exc, merged, positions, loaded_files)
                        if (p.location.file, p.location.line) not in already)
    if problems or intent is None:
        raise IntentError(problems)
    attach_paths(intent)
    return LoadedIntent(intent, positions, loaded_files)


def display_path(path: Path) -> str:
    """Relative to the working directory when inside it (as editors and CI annotate)."""
    absolute = path.resolve()
    try:
        return absolute.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return absolute.as_posix()


def _merge(sources: list[SourceFile], problems: list[Problem]) -> tuple[Any, dict[Path_, Location]]:
    """Deep-merge the files: mappings combine, any other value may be written only once."""
    merged: dict[str, Any] = {}
    positions: dict[Path_, Location] = {}
    for source in sources:
        if not isinstance(source.data, dict):
            problems.append(Problem(Location(source.name, 1, 1),
                                    "an intent file must hold a mapping at the top", "wrong-type"))
            continue
        _merge_into(merged, source.data, (), source, positions, problems)
    return merged, positions


def _merge_into(target: dict[str, Any], incoming: dict[str, Any], path: Path_,
                source: SourceFile, positions: dict[Path_, Location],
                problems: list[Problem]) -> None:
    for key, value in incoming.items():
        key_path = (*path, key)
        if key not in target:
            target[key] = value
            for p, loc in source.positions.items():
                if p[: len(key_path)] == key_path:
                    positions[p] = loc
            continue
        if isinstance(target[key], dict) and isinstance(value, dict):
            _merge_into(target[key], value, key_path, source, positions, problems)
            continue
        problems.append(Problem(
            source.positions.get(key_path, Location(source.name, 1, 1)),
            f"'{'.'.join(map(str, key_path))}' is already defined at {positions[key_path]}",
            "duplicate-key",
        ))


_FRIENDLY = {
    "extra_forbidden": "unknown key '{key}'{hint}",
    "missing": "missing required key '{key}'",
}


def _schema_problems(exc: ValidationError, data: Any, positions: dict[Path_, Location],
                     files: list[str]) -> list[Problem]:
    problems = []
    for error in exc.errors(include_url=False):
        path = _data_path(error["loc"], data)
        where = _nearest(path, positions, files)
        key = str(error["loc"][-1]) if error["loc"] else ""
        kind = error["type"]
        if kind in _FRIENDLY:
            hint = _suggest(key) if kind == "extra_forbidden" else ""
            message = _FRIENDLY[kind].format(key=key, hint=hint)
        else:
            message = _describe(error, path)
        problems.append(Problem(where, message, _kind(kind)))
    return problems


def _kind(pydantic_type: str) -> str:
    if pydantic_type == "extra_forbidden":
        return "unknown-key"
    if pydantic_type == "missing":
        return "missing-key"
    if pydantic_type.endswith("_type") or pydantic_type in ("literal_error", "enum"):
        return "wrong-type" if pydantic_type != "literal_error" else "bad-value"
    if pydantic_type in ("greater_than_equal", "less_than_equal", "greater_than", "less_than",
                         "too_short", "too_long", "string_too_short", "string_too_long"):
        return "out-of-range"
    return "bad-value"


def _describe(error: Any, path: Path_) -> str:
    field = ".".join(str(p) for p in path) or "intent"
    message = str(error["msg"])
    if message.startswith("Value error, "):
        message = message[len("Value error, "):]
    if error["type"] == "string_pattern_mismatch":
        message = f"'{error['input']}' is not a valid name here ({error['ctx']['pattern']})"
    elif error["type"] not in ("value_error", "assertion_error"):
        message = f"{message}, got {error['input']!r}"
    return f"{field}: {message}"


def _suggest(key: str) -> str:
    """Point at the likely intended key for a misspelling."""
    close = difflib.get_close_matches(key, _all_field_names(), n=1, cutoff=0.75)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _all_field_names() -> list[str]:
    names: set[str] = set()
    for cls in vars(schema).values():
        if isinstance(cls, type) and issubclass(cls, schema.Node):
            names.update(cls.model_fields)
    return sorted(names)


def _data_path(loc: tuple[int | str, ...], data: Any) -> Path_:
    """Drop pydantic's validator tags ('function-after[...]', '[key]') from an error location."""
    path: list[str | int] = []
    node = data
    for part in loc:
        if isinstance(node, dict) and part in node:
            path.append(part)
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            path.append(part)
            node = node[part]
        elif isinstance(node, dict) and isinstance(part, str) and "[" not in part:
            path.append(part)  # a missing key: its parent's position is the best we have
            node = None
        # anything else is a validator tag, not data
    return tuple(path)


def _nearest(path: Path_, positions: dict[Path_, Location], files: list[str]) -> Location:
    for end in range(len(path), -1, -1):
        found = positions.get(tuple(path[:end]))
        if found is not None:
            return found
    return Location(files[0], 1, 1)
