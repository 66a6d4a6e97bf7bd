"""Load an intent folder: read every YAML file, merge, validate the schema, resolve names.

Every problem of a run is collected and raised at once as IntentError (exit 2). Intent comes
from the repository: a symbolic link leaving the intent folder is refused, never followed.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import re
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import annotated_types
from pydantic import BaseModel, ValidationError

from meetme.core.problems import (
    SHOWN_CHARS,
    IntentError,
    Location,
    Problem,
    clip,
    printable,
    shown,
)
from meetme.intent.references import DUPLICATE, check_references
from meetme.intent.schema import Intent, Site, attach_paths
from meetme.intent.schema_base import Node
from meetme.intent.types import NAME_PATTERN, VALUE_ALONE
from meetme.intent.yaml_source import (
    NAMED_COLLECTIONS,
    PEERING_COLLECTIONS,
    Budget,
    Path_,
    SourceFile,
    read_file,
    secret_key,
    secret_path,
)

INTENT_SUFFIXES = (".yaml", ".yml")
# Files and bytes one run reads: a 2,000-device site is a few hundred files and a few MB; the
# bound keeps a runaway folder to about a second of reading (libyaml reads ~15 MB/s).
MAX_INTENT_FILES = 5_000
MAX_INTENT_BYTES = 16 * 1024 * 1024
# A message quotes a name or key by at most this much (names are at most 63 characters).
SHOWN_NAME_CHARS = 64
# No message is longer than this: the last fence against a value that made it into one.
MAX_MESSAGE_CHARS = 2_000
# Problems reported by one run: more are the same mistake repeated (a pasted file, a script
# gone wrong), and printing 50,000 of them took seconds; the rest are counted in a last one.
MAX_PROBLEMS = 500


@dataclass
class LoadedIntent:
    intent: Intent
    positions: dict[Path_, Location]
    files: list[str]
    # where each value starts (positions holds where its key is): problems with a value
    value_positions: dict[Path_, Location] = field(default_factory=dict)

    def where(self, path: Path_) -> Location:
        """The position of a path, or of its nearest written ancestor."""
        for end in range(len(path), -1, -1):
            found = self.positions.get(tuple(path[:end]))
            if found is not None:
                return found
        return Location(self.files[0] if self.files else "intent", 1, 1)


def intent_files(folder: Path) -> list[Path]:
    """The intent files of a folder that may be read (see scan_intent for the refused)."""
    return scan_intent(folder)[0]


def scan_intent(folder: Path) -> tuple[list[Path], list[Problem]]:
    """Every *.yaml / *.yml under the folder, each real file once, and a problem for each
    symbolic link (to a file or a folder) that leaves the folder.

    Links are never followed out: the walk does not descend into linked folders (nor does
    Python 3.11's Path.rglob, but rglob lists a linked file and reads it wherever it points);
    a link that stays inside names a file or folder the walk reaches under its own name. The
    walk keeps its own stack, as os.walk recurses once per folder level.
    """
    root = os.path.realpath(folder)
    files: list[Path] = []
    links: list[Path] = []
    problems: list[Problem] = []
    pending = [Path(folder)]
    while pending:
        current = pending.pop()
        try:
            with os.scandir(current) as listing:
                entries = sorted(listing, key=lambda entry: entry.name, reverse=True)
        except OSError as exc:
            message = f"cannot read this folder: {exc.strerror or 'I/O error'}"
            problems.append(_at_file(current, message, "unreadable"))
            continue
        for entry in entries:
            path = Path(entry.path)
            kind = _entry_kind(entry)
            if kind == "folder-link" and not _inside(path, root):
                problems.append(_outside(path, "folder"))
            elif kind == "folder":
                pending.append(path)
            elif entry.name.startswith(".#") and kind == "link":
                continue  # an editor's lock on a file being edited (Emacs), never intent
            elif path.suffix in INTENT_SUFFIXES and kind != "folder-link":
                (links if kind == "link" else files).append(path)
            elif path.suffix.lower() in INTENT_SUFFIXES and kind != "folder-link":
                # read by no one: its whole content would vanish from the site unsaid
                message = (
                    f"intent files end in {' or '.join(INTENT_SUFFIXES)}, in lower case: rename "
                    f"it to {path.stem}{path.suffix.lower()} (as written, meetme reads none of it)"
                )
                problems.append(_at_file(path, message, "bad-name"))
    seen = {os.path.realpath(p) for p in files}
    for link in sorted(links):
        target = os.path.realpath(link)
        if not _inside(link, root):
            problems.append(_outside(link, "file"))
        elif not os.path.exists(target):
            message = "symbolic link to a file that does not exist; point it at a file or remove it"
            problems.append(_at_file(link, message, "missing"))
        elif target not in seen:  # else it is read under its own name, and only there
            seen.add(target)
            files.append(link)
    return sorted(files), problems


def _entry_kind(entry: os.DirEntry[str]) -> str:
    """folder, folder-link, link (to anything else, or to nothing) or file (any other)."""
    try:
        if entry.is_symlink():
            return "folder-link" if entry.is_dir() else "link"
        return "folder" if entry.is_dir(follow_symlinks=False) else "file"
    except OSError:  # unreadable: read_file says why
        return "file"


def _inside(path: Path, root: str) -> bool:
    target = os.path.realpath(path)  # never raises, even on a loop of links
    return target == root or target.startswith(root.rstrip(os.sep) + os.sep)


def _outside(link: Path, what: str) -> Problem:
    # the target is named neither by content nor by path: the message is for a public CI log
    return _at_file(
        link,
        f"symbolic link to a {what} outside the intent folder; intent is read from the "
        f"repository only: replace the link with the {what} itself, or remove it",
        "outside-intent",
    )


def _at_file(path: Path, message: str, kind: str) -> Problem:
    return Problem(Location(display_path(path), 1, 1), message, kind)


def _intent_root_above(path: Path) -> Path | None:
    """The highest folder above `path` reached through folders that all hold intent files
    (a site's folder sits in the intent folder, which holds organisation.yaml): the intent
    folder a misplaced path belongs to. None when `path`'s own folder holds none."""
    root = None
    for folder in path.parents:
        try:
            holds = any(c.suffix in (".yaml", ".yml") and c.is_file() for c in folder.iterdir())
        except OSError:  # not a folder, or not ours to list: no hint from it
            break
        if not holds:
            break
        root = folder
    return root


def load_intent(folder: Path) -> LoadedIntent:
    folder = Path(folder)
    if not folder.is_dir():
        hint = "pass the folder holding the intent YAML files with --intent"
        root = _intent_root_above(folder)
        if root is not None:
            # `meetme lint intent`: REPO is the folder that holds intent/, not intent/ itself;
            # `--intent intent/aus1/site.yaml`: a file (or a site's folder) of the intent
            given = display_path(root)
            hint = (
                f"{given} holds intent files itself: name the folder that holds intent/ "
                f"(the repository), or pass --intent {given}"
            )
        what = "a file, not the intent folder" if folder.is_file() else "intent folder not found"
        raise IntentError(
            [Problem(Location(display_path(folder), 1, 1), f"{what}; {hint}", "missing")]
        )
    paths, refused = scan_intent(folder)
    problems = list(refused)
    sources, unreadable = _read_all(folder, paths, problems)
    if unreadable or refused:  # the merged tree lacks a file: only what holds without it
        raise _error(_fold_ambiguous([*problems, *_without_a_file(sources)]))
    if not sources:
        what = "only empty intent files" if paths else "no intent files (*.yaml or *.yml)"
        raise IntentError(
            [
                Problem(
                    Location(display_path(folder), 1, 1),
                    f"{what} in this folder; it should hold the organisation "
                    "and its sites (organisation: ..., sites: ...)",
                    "empty",
                )
            ]
        )

    merged, positions, value_positions = _merge(sources, problems)
    if any(not isinstance(s.data, dict) for s in sources):  # the rest would look missing
        raise _error(
            _fold_ambiguous([*problems, *_alone(merged, positions, value_positions, sources)])
        )
    loaded_files = [s.name for s in sources]

    problems.extend(check_references(merged, positions, value_positions))
    intent: Intent | None = None
    try:
        intent = Intent.model_validate(merged)
    except ValidationError as exc:
        problems.extend(_schema_problems(exc, merged, positions, value_positions, loaded_files))
    problems = _after_merge_keys(_fold_ambiguous(problems))
    if problems or intent is None:
        raise _error(problems)
    attach_paths(intent)
    return LoadedIntent(intent, positions, loaded_files, value_positions)


# Schema errors that a value shows by itself, whatever another file holds: a key the schema
# does not know, a value of the wrong type, a number or text out of its range, a choice not
# offered, a value its own validator refuses (VALUE_ALONE: a malformed address or prefix).
# Not: a missing key, a collection too short, a cross-field check (`value_error`), a dangling
# name, which the file that could not be read may well supply.
_HOLDS_ALONE = ("extra_forbidden", "literal_error", "int_from_float", "string_pattern_mismatch",
                "greater_than_equal", "less_than_equal", "greater_than", "less_than",
                "string_too_short", "string_too_long", VALUE_ALONE)  # fmt: skip


def _holds_alone(pydantic_type: str) -> bool:
    return pydantic_type in _HOLDS_ALONE or pydantic_type.endswith(("_type", "_parsing"))


def _without_a_file(sources: list[SourceFile]) -> list[Problem]:
    """The problems of the files that were read when another could not be: a file that holds
    no mapping, keys written in two files, and the schema errors each value shows by itself;
    so one run reports those too."""
    problems: list[Problem] = []
    if not sources:
        return problems
    merged, positions, value_positions = _merge(sources, problems)
    # a name or id used twice among the files read stays used twice whatever the unreadable
    # file holds; a dangling name might be defined there, so it is not said
    twice = [p for p in check_references(merged, positions, value_positions) if p.kind == DUPLICATE]
    return [*problems, *twice, *_alone(merged, positions, value_positions, sources)]


def _alone(
    merged: Any, positions: Positions, value_positions: Positions, sources: list[SourceFile]
) -> list[Problem]:
    """The schema errors the merged files' values show by themselves (`_holds_alone`), when
    a file is missing from the merge: unreadable, or holding no mapping."""
    try:
        Intent.model_validate(merged)
    except ValidationError as exc:
        files = [s.name for s in sources]
        return _schema_problems(exc, merged, positions, value_positions, files, _holds_alone)
    return []


def _read_all(
    folder: Path, paths: list[Path], problems: list[Problem]
) -> tuple[list[SourceFile], bool]:
    """Read the files in order, within the run's limits on files, bytes and values."""
    if len(paths) > MAX_INTENT_FILES:
        message = (
            f"{len(paths):,} intent files in this folder, more than the {MAX_INTENT_FILES:,} "
            "meetme reads in one run; is --intent the intent folder?"
        )
        problems.append(_at_file(folder, message, "too-large"))
        return [], True
    sources: list[SourceFile] = []
    unreadable = False
    budget = Budget()
    total = 0
    for path in paths:
        with contextlib.suppress(OSError):  # read_file reports it
            total += path.stat().st_size
        if total > MAX_INTENT_BYTES:
            message = (
                f"the intent files up to this one hold more than {MAX_INTENT_BYTES:,} bytes, "
                "what meetme reads in one run; is --intent the intent folder?"
            )
            problems.append(_at_file(path, message, "too-large"))
            return sources, True
        source, file_problems = read_file(
            path, display_path(path), budget, secret=_under_secret_field
        )
        problems.extend(file_problems)
        unreadable = unreadable or source is None
        if source is not None and source.data is not None:
            sources.append(source)
    return sources, unreadable


def _error(problems: list[Problem]) -> IntentError:
    """Every message printable and bounded, whoever wrote it: no newline or terminal control
    reaches a log, and no runaway value fills one; at most MAX_PROBLEMS of them."""
    ordered = sorted(problems, key=lambda p: (p.location, p.message))
    shown = [
        Problem(p.location, clip(p.message, MAX_MESSAGE_CHARS), p.kind)
        if len(p.message) > MAX_MESSAGE_CHARS or not p.message.isprintable()
        else p
        for p in ordered[:MAX_PROBLEMS]
    ]
    if len(ordered) > MAX_PROBLEMS:
        rest = len(ordered) - MAX_PROBLEMS
        message = f"{rest:,} more problem(s) from here on are not shown; fix those above first"
        shown.append(Problem(ordered[MAX_PROBLEMS].location, message, "too-many-problems"))
    return IntentError(shown)


def display_path(path: Path) -> str:
    """Relative to the working directory when inside it (as editors and CI annotate).

    The last part stays as written: a symbolic link is reported under its own name."""
    path = Path(path)
    keep_name = path.name not in ("", ".", "..")
    absolute = path.parent.resolve() / path.name if keep_name else path.resolve()
    try:
        return absolute.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return absolute.as_posix()


def _after_merge_keys(problems: list[Problem]) -> list[Problem]:
    """A refused merge key (`<<:`) still brings its keys in, so that no 'missing key' follows;
    a schema problem of the mapping itself, at the merge key, comes from those keys (a
    `built:` merged beside a `leased:`): the refusal alone is said there."""
    merges = {p.location for p in problems if p.kind == "yaml-merge"}
    return [p for p in problems if p.kind == "yaml-merge" or p.location not in merges]


def _fold_ambiguous(problems: list[Problem]) -> list[Problem]:
    """One problem per value read the YAML 1.1 way: a 'no' that is also not a known room or
    not an allowed word is one mistake, reported once with everything the reader should know."""
    ambiguous = {p.location for p in problems if p.kind == "yaml-ambiguous"}
    result: list[Problem] = []
    extra: dict[Location, list[str]] = {}
    for problem in dict.fromkeys(problems):  # also drops exact repeats
        if problem.location in ambiguous and problem.kind != "yaml-ambiguous":
            extra.setdefault(problem.location, []).append(problem.message)
        else:
            result.append(problem)
    # the other problem says what the text should be, so 'quote it' would mislead
    return [
        Problem(
            p.location, "; ".join([p.message.split("; quote it")[0], *extra[p.location]]), p.kind
        )
        if p.kind == "yaml-ambiguous" and p.location in extra
        else p
        for p in result
    ]


Positions = dict[Path_, Location]


def _merge(sources: list[SourceFile], problems: list[Problem]) -> tuple[Any, Positions, Positions]:
    """Combine the files: the tree of sites and named collections is shared, and each named
    thing (a device, a room), setting block or value is written in exactly one file."""
    merged: dict[str, Any] = {}
    positions: Positions = {}
    value_positions: Positions = {}
    for source in sources:
        if not isinstance(source.data, dict):
            problems.append(
                Problem(
                    source.value_positions.get((), Location(source.name, 1, 1)),
                    f"an intent file holds a mapping at the top (organisation: ..., sites: ...), "
                    f"not {_kind_of(source.data)}",
                    "wrong-type",
                )
            )
            continue
        rejected: list[Path_] = []
        _merge_into(
            merged, source.data, (), source, (positions, value_positions), problems, rejected
        )
        for own, theirs in (
            (positions, source.positions),
            (value_positions, source.value_positions),
        ):
            for path, loc in theirs.items():
                if path not in own and not any(path[: len(r)] == r for r in rejected):
                    own[path] = loc
    positions.update(_settings_fragments(sources))
    return merged, positions, value_positions


def _settings_fragments(sources: list[SourceFile]) -> Positions:
    """Where each site written across several files is said to be: the fragment holding most
    of its required settings (asn, pools, management, environment), else the one holding the
    least (an emptied `aus1: {}`), else the first. A setting missing from the site is
    reported there, not in whichever file sorts first (attachments.yaml)."""
    required = {name for name, field in Site.model_fields.items() if field.is_required()}
    found: dict[Path_, list[tuple[int, int, int, Location]]] = {}
    for order, source in enumerate(sources):
        sites = source.data.get("sites") if isinstance(source.data, dict) else None
        for name, fragment in sites.items() if isinstance(sites, dict) else ():
            where = source.positions.get(("sites", name))
            if where is None:
                continue
            keys = fragment if isinstance(fragment, dict) else {}
            held = len(required & set(keys))
            found.setdefault(("sites", name), []).append((-held, len(keys), order, where))
    return {path: min(fragments)[3] for path, fragments in found.items() if len(fragments) > 1}


def _shared(path: Path_) -> bool:
    """Paths whose mapping several files may add to: the root, sites, a site, a collection,
    a site's peering and its collections."""
    if len(path) <= 2:
        return path[:1] in ((), ("sites",))
    if path[0] != "sites":
        return False
    if len(path) == 3:
        return str(path[2]) in NAMED_COLLECTIONS or path[2] == "peering"
    return len(path) == 4 and path[2] == "peering" and str(path[3]) in PEERING_COLLECTIONS


def _merge_into(
    target: dict[str, Any],
    incoming: dict[str, Any],
    path: Path_,
    source: SourceFile,
    merged: tuple[Positions, Positions],
    problems: list[Problem],
    rejected: list[Path_],
) -> None:
    """Merge one file's mapping into what the files before it gave (`merged`: their key and
    value positions)."""
    positions, value_positions = merged
    for key, value in incoming.items():
        key_path = (*path, key)
        if key not in target:
            target[key] = value
            continue
        if _shared(key_path) and isinstance(target[key], dict) and isinstance(value, dict):
            _merge_into(target[key], value, key_path, source, merged, problems, rejected)
            continue
        if _shared(key_path) and isinstance(target[key], dict) != isinstance(value, dict):
            # a collection left empty (or written as a list) in one file beside its entries
            # in another: that value is the one problem, not a duplicate, and the entries
            # stay merged so that names elsewhere still resolve
            if isinstance(value, dict):
                odd = target[key]
                where = value_positions.get(key_path) or positions.get(key_path)
                target[key] = value
            else:
                odd = value
                where = source.value_positions.get(key_path) or source.positions.get(key_path)
            problems.append(
                Problem(
                    where or Location(source.name, 1, 1),
                    f"{'.'.join(map(str, key_path))}: expected a mapping (key: value), got "
                    f"{_kind_of(odd)}; another file writes its entries: remove this key, or "
                    "write entries under it",
                    "wrong-type",
                )
            )
            continue
        rejected.append(key_path)
        first = positions.get(key_path, Location("intent", 1, 1))
        nouns = PEERING_COLLECTIONS if len(path) == 4 else NAMED_COLLECTIONS
        noun = nouns.get(str(path[-1])) if path else None
        if noun is not None and _shared(path):
            message = (
                f"{noun} '{key}' is already defined at {first}; a name is defined once "
                "across all intent files: rename or remove one"
            )
        else:
            message = (
                f"'{'.'.join(map(str, key_path))}' is already written at {first}; "
                "write it in one file only"
            )
        problems.append(
            Problem(
                source.positions.get(key_path, Location(source.name, 1, 1)),
                message,
                "duplicate-key",
            )
        )


def _schema_problems(
    exc: ValidationError,
    data: Any,
    positions: Positions,
    value_positions: Positions,
    files: list[str],
    kept: Callable[[str], bool] | None = None,
) -> list[Problem]:
    """One problem per schema error (`kept`: only the errors of the pydantic types it keeps)."""
    errors = [e for e in exc.errors(include_url=False) if kept is None or kept(str(e["type"]))]
    # a misspelt key also makes the right one 'missing': report the misspelling only
    suggested: set[Path_] = set()
    unknown: list[tuple[Path_, str]] = []
    for error in errors:
        if error["type"] == "extra_forbidden":
            path = _data_path(error["loc"], data)
            # past what is reported, a did-you-mean costs time (difflib) and shows nowhere
            hint = (
                _closest(str(path[-1]), _keys_of(path[:-1])) if len(unknown) < MAX_PROBLEMS else ""
            )
            unknown.append((path, hint))
            if hint:
                suggested.add((*path[:-1], hint))
    hints = dict(unknown)
    problems = []
    for error in errors:
        path = _data_path(error["loc"], data)
        kind = error["type"]
        if kind == "missing" and path in suggested:
            continue
        if kind == "extra_forbidden":
            where = _nearest(path, positions, files)
            message = _unknown_key(path, hints[path])
        elif kind == "missing":
            where = _nearest(path, positions, files)
            message = _missing_key(path)
        else:
            on_key = bool(error["loc"]) and error["loc"][-1] == "[key]"
            where = _nearest(path, positions, files)
            if not on_key:  # point at the wrong value itself, not at its key
                where = value_positions.get(path, where)
            message = _describe(error, path, on_key)
        problems.append(Problem(where, message, _kind(kind)))
    return problems


def _unknown_key(path: Path_, hint: str) -> str:
    key, parent = clip(str(path[-1]), SHOWN_NAME_CHARS), _dotted(path[:-1])
    if hint:
        return f"unknown key '{key}' in {parent}; did you mean '{hint}'?"
    allowed = _keys_of(path[:-1])
    listed = f"; allowed here: {', '.join(allowed)}" if allowed else ""
    return f"unknown key '{key}' in {parent}{listed}"


def _missing_key(path: Path_) -> str:
    key = str(path[-1])
    message = f"{_dotted(path[:-1])} has no '{key}'; add {key}:"
    core, _ = _schema_at(path)
    choices = _literal_values(core)
    if choices:
        message += f" (one of {', '.join(choices)})"
    else:
        description = _description(path)
        message += f" ({description})" if description else ""
    return message


def _kind(pydantic_type: str) -> str:
    if pydantic_type == "extra_forbidden":
        return "unknown-key"
    if pydantic_type == "missing":
        return "missing-key"
    if pydantic_type.endswith(("_type", "_parsing")) or pydantic_type == "int_from_float":
        return "wrong-type"
    if pydantic_type in (
        "greater_than_equal",
        "less_than_equal",
        "greater_than",
        "less_than",
        "too_short",
        "too_long",
        "string_too_short",
        "string_too_long",
    ):
        return "out-of-range"
    return "bad-value"


_EXPECTED = {
    "int": "a whole number",
    "string": "text",
    "dict": "a mapping (key: value)",
    "model": "a mapping (key: value)",
    "model_attributes": "a mapping (key: value)",
    "list": "a list ([a, b] or lines starting with '- ')",
    "bool": "true or false",
    "float": "a number",
}


def _describe(error: Any, path: Path_, on_key: bool) -> str:
    """Say what is wrong with a value and what to write instead, in the intent's terms.

    The value is quoted only as a short escaped prefix, and not at all under a key named
    like a secret: a message goes to CI logs and merge-request annotations."""
    field_name = _dotted(path)
    kind = str(error["type"])
    given = error.get("input")
    ctx = error.get("ctx") or {}
    hidden = _under_secret_field(path) and not on_key
    quoted = "a hidden value" if hidden else shown(given)
    if kind in ("value_error", "assertion_error", VALUE_ALONE):
        message = str(error["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")
        message = _redacted(message, given, hidden)
    elif kind == "literal_error":
        choices = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
        what = "key" if on_key else "value"
        hint = "" if hidden else _did_you_mean(str(given), choices)
        message = f"{what} {quoted} is not allowed; write one of {', '.join(choices)}{hint}"
        # repr: the number as Python writes it (`99.90` is 99.9), str: as the user wrote it
        if (
            isinstance(given, int | float)
            and not isinstance(given, bool)
            and repr(given) in choices
        ):
            # `sla: 99.99` unquoted: YAML read a number where the choices are text
            message = f"{what} {quoted} is a number here, and the choices are text: " + (
                "quote it" if hidden else f'quote it: "{given!r}"'
            )
    elif kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        message = f"{_range_text(path, ctx)}, got {quoted}"
    elif kind == "too_short":
        got = ctx.get("actual_length")
        message = f"needs at least {_entries(ctx.get('min_length'))}, got {got}"
    elif kind == "too_long":
        got = ctx.get("actual_length")
        message = f"takes at most {_entries(ctx.get('max_length'))}, got {got}"
    elif kind == "string_too_short":
        message = "must not be empty"
    elif kind == "string_pattern_mismatch":
        message = _pattern_text(quoted, str(ctx.get("pattern", "")))
    elif kind.removesuffix("_type").removesuffix("_parsing") in _EXPECTED:
        expected = _EXPECTED[kind.removesuffix("_type").removesuffix("_parsing")]
        got = _kind_of(given) if hidden else _describe_input(given)
        message = f"expected {expected}, got {got}"
        if kind == "string_type" and isinstance(given, int | float) and given is not True:
            message += "; quote it" if hidden else f'; quote it: "{shown(given)}"'
    elif kind == "int_from_float":
        message = f"expected a whole number, got {quoted}"
    else:
        got = _kind_of(given) if hidden else _describe_input(given)
        message = f"{_redacted(str(error['msg']), given, hidden)}, got {got}"
    return f"{field_name}: {message}"


def _entries(count: object) -> str:
    return f"{count} entry" if count == 1 else f"{count} entries"


def _redacted(message: str, given: Any, hidden: bool) -> str:
    """A validator's message with the value it quotes cut short, or taken out for a secret.

    Only the user's value is touched, never the rule's own words: the value where the message
    quotes it (`shown`'s quotation, whole or cut short, escaped or as written) and, in a
    message that quotes it, where it stands again as a word of its own (`e.g. 10.0.0.0/24`).
    A message that never quotes the value (a secret reference's) is left as written: the
    value `secret:` must not eat the `secret:` of the rule's `secret:NAME`."""
    if isinstance(given, bool) or not isinstance(given, str | int | float):
        return message
    text = str(given)
    if not text or not (hidden or len(text) > SHOWN_CHARS):
        return message
    quoted = _quotations(message, text)
    if not quoted:
        return message
    bare = re.compile(r"(?<!\S)" + re.escape(text) + r"(?!\w)")
    spans = sorted(quoted + [m.span() for m in bare.finditer(message)])
    replacement = "a hidden value" if hidden else shown(given)
    parts: list[str] = []
    at = 0
    for start, end in spans:
        if start >= at:  # a word inside a quotation is the quotation's
            parts += [message[at:start], replacement]
            at = end
    return "".join([*parts, message[at:]])


def _quotations(message: str, text: str) -> list[tuple[int, int]]:
    """Where `message` quotes `text` (start, end): whole, as written or escaped, or cut short
    as `shown` cuts it (`'first characters…'`)."""
    escaped = printable(text)
    whole = {f"'{text}'", f"'{escaped}'"}
    spans: list[tuple[int, int]] = []
    at = message.find("'")
    while at != -1:
        end = next((at + len(q) for q in whole if message.startswith(q, at)), 0)
        close = message.find("…'", at + 1)
        cut = message[at + 1 : close] if not end and close != -1 else ""
        # the escaped prefix of a first n characters is a prefix of the escaped whole
        if cut and escaped.startswith(cut):
            longest = min(len(cut), len(text) - 1)
            if any(printable(text[:n]) == cut for n in range(1, longest + 1)):
                end = close + 2
        if end:
            spans.append((at, end))
        at = message.find("'", end or at + 1)
    return spans


def _describe_input(value: Any) -> str:
    if isinstance(value, str):
        return shown(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"the number {shown(value)}"
    return _kind_of(value)


def _kind_of(value: Any) -> str:
    """What sort of value was written, without any of it."""
    if value is None:
        return "an empty value"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"a {type(value).__name__}"


def _range_text(path: Path_, ctx: dict[str, Any]) -> str:
    low: Any = None
    high: Any = None
    for item in _schema_at(path)[1]:
        if isinstance(item, annotated_types.Ge):
            low = item.ge
        elif isinstance(item, annotated_types.Gt):
            low = f"more than {item.gt}"
        elif isinstance(item, annotated_types.Le):
            high = item.le
        elif isinstance(item, annotated_types.Lt):
            high = f"less than {item.lt}"
    if isinstance(low, int) and isinstance(high, int):
        return f"must be between {low} and {high}"
    if "ge" in ctx:
        return f"must be at least {ctx['ge']}"
    if "gt" in ctx:
        return f"must be more than {ctx['gt']}"
    if "le" in ctx:
        return f"must be at most {ctx['le']}"
    return f"must be less than {ctx.get('lt')}"


def _pattern_text(quoted: str, pattern: str) -> str:
    if pattern == NAME_PATTERN:
        return (
            f"{quoted} is not a valid name: use letters, digits, '.', '_' and '-', "
            "start with a letter or digit, at most 63 characters"
        )
    return f"{quoted} does not match {pattern}"


def _did_you_mean(given: str, choices: list[str]) -> str:
    close = _closest(given, choices)
    return f" (did you mean '{close}'?)" if close else ""


def _closest(given: str, choices: list[str]) -> str:
    if len(given) > SHOWN_NAME_CHARS:  # no choice is that long, and difflib would take long
        return ""
    close = difflib.get_close_matches(given, choices, n=1, cutoff=0.75)
    return close[0] if close else ""


def _dotted(path: Path_) -> str:
    parts = (clip(str(p), SHOWN_NAME_CHARS) for p in path)
    return ".".join(parts) or "the top of the intent"


def _unwrap(annotation: Any) -> tuple[Any, list[Any]]:
    """Strip Annotated and Optional from a type; collect the constraints on the way."""
    metadata: list[Any] = []
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            inner, *extras = get_args(annotation)
            for extra in extras:
                metadata.extend(getattr(extra, "metadata", [extra]))
            annotation = inner
        elif origin in (Union, types.UnionType):
            options = [a for a in get_args(annotation) if a is not type(None)]
            if len(options) != 1:
                return annotation, metadata
            annotation = options[0]
        else:
            return annotation, metadata


def _schema_at(path: Path_) -> tuple[Any, list[Any]]:
    """The declared type at a data path and its constraints; (None, []) if not in the schema."""
    current: Any = Intent
    metadata: list[Any] = []
    for part in path:
        if isinstance(current, type) and issubclass(current, BaseModel):
            info = current.model_fields.get(str(part))
            if info is None:
                return None, []
            current, metadata = _unwrap(info.annotation)
            metadata = [*info.metadata, *metadata]
        elif get_origin(current) is dict:
            current, metadata = _unwrap(get_args(current)[1])
        elif get_origin(current) is list:
            current, metadata = _unwrap(get_args(current)[0])
        else:
            return None, []
    return current, metadata


def _under_secret_field(path: Path_) -> bool:
    """Whether a value sits under a key named like a secret, counting the schema's own field
    names only: the name a user gives an entry (an AWS VIF `private-1`, a device `aus1-auth1`)
    says nothing of its value. Where the schema does not say what a part is (a key it does not
    know, one of several shapes), that part and every one after it count, as the reader's
    `secret_path` counts every part."""
    for depth, part in enumerate(path):
        container, _ = _schema_at(path[:depth])
        if get_origin(container) in (dict, list):
            continue  # an entry's name, or an index
        if not (isinstance(container, type) and issubclass(container, BaseModel)):
            return secret_path(path[depth:])
        if secret_key(part):
            return True
    return False


def _keys_of(path: Path_) -> list[str]:
    """The keys the schema allows in the object at a path."""
    model, _ = _schema_at(path)
    if isinstance(model, type) and issubclass(model, BaseModel):
        return list(model.model_fields)
    return []


def _literal_values(annotation: Any) -> list[str]:
    return [str(v) for v in get_args(annotation)] if get_origin(annotation) is Literal else []


def _description(path: Path_) -> str:
    model, _ = _schema_at(path[:-1])
    if isinstance(model, type) and issubclass(model, Node):
        info = model.model_fields.get(str(path[-1]))
        if info is not None and info.description:
            return info.description.rstrip(".")
    return ""


def _data_path(loc: tuple[int | str, ...], data: Any) -> Path_:
    """Drop pydantic's validator tags ('function-after[...]', '[key]') from an error location."""
    path: list[str | int] = []
    node = data
    for part in loc:
        in_dict = isinstance(node, dict) and part in node
        if in_dict or (isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)):
            path.append(part)
            node = node[part]
        elif isinstance(node, dict) and isinstance(part, str) and "[" not in part:
            path.append(part)  # a missing key: its parent's position is the best we have
            node = None
        # anything else is a validator tag, not data
    return tuple(path)


def _nearest(path: Path_, positions: Positions, files: list[str]) -> Location:
    for end in range(len(path), -1, -1):
        found = positions.get(tuple(path[:end]))
        if found is not None:
            return found
    return Location(files[0], 1, 1)
