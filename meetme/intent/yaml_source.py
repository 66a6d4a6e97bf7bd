"""Read intent YAML into plain data while keeping the file:line:column of every node.

PyYAML alone is too forgiving for a source of truth: it silently keeps the last of two duplicate
keys and reads YAML 1.1 words (`no`, `on`, `off`) as booleans, 010 as octal 8 and 1:30 as 90.
This reader composes PyYAML's node tree and constructs the values itself, so every one of these
becomes a problem with a position instead of a silent surprise.

It is also the fence against hostile input: a file too large, nested too deep, an alias bomb, a
control character or an unknown tag (`!vault`, `!!python/name:`) is refused at its position,
within a second, and a message never quotes more of a value than a short escaped prefix, nor
anything at all of a value under a key named like a secret.
"""

from __future__ import annotations

import contextlib
import gc
import os
import re
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

import yaml

from meetme.core.problems import SHOWN_CHARS, Location, Problem, clip, shown

Path_ = tuple[str | int, ...]

BOOL_TAG = "tag:yaml.org,2002:bool"
INT_TAG = "tag:yaml.org,2002:int"
FLOAT_TAG = "tag:yaml.org,2002:float"
NULL_TAG = "tag:yaml.org,2002:null"
STR_TAG = "tag:yaml.org,2002:str"
MAP_TAG = "tag:yaml.org,2002:map"
SEQ_TAG = "tag:yaml.org,2002:seq"

_OCTAL_LOOKING = re.compile(r"[-+]?0[0-9_]+")
# integers YAML 1.1 reads and YAML 1.2 does not: digits grouped with `_`, binary `0b…`
_YAML11_ONLY = re.compile(r"[-+]?(?:0b[01_]+|[0-9][0-9_]*_[0-9_]*|0x[0-9a-fA-F_]*_[0-9a-fA-F_]*)")


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
    "pods": "pod",
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


# --- limits: each keeps a hostile or runaway file to well under a second and 300 MB ---------

# Real intent files are kilobytes (the example's largest is 4 KB for 18 devices, ~230 bytes a
# device). A larger file is refused before it is read, so a 100 MB file costs a stat, not
# minutes; libyaml scans this much in ~0.3 s (the value limit below usually stops it sooner).
MAX_FILE_BYTES = 4 * 1024 * 1024
# Intent is at most ~10 levels deep; composing is recursive, and 3,000 levels crashed Python.
MAX_DEPTH = 64
# Values (mappings, lists, keys, scalars) a file may build, aliases expanded: a device is ~20,
# the whole 18-device example ~3,000, so a 2,000-device site in one file fits; an alias bomb
# of nine levels of nine would be 387 million. 100,000 values read in ~0.5 s and ~40 MB.
MAX_NODES_PER_FILE = 100_000
# The same bound over all files of a run. A site is ~36 values a device (the 4,160-device
# benchmark intent, benchmarks/make_intent.py: 150,569 values, parsed in ~0.8 s into ~73 MB),
# so this holds a site of about 11,000 devices, and a runaway intent stops at ~200 MB.
MAX_NODES_PER_RUN = 400_000
# Aliases a file may use; intent rarely needs any, so many aliases are a bomb being built.
MAX_ALIASES_PER_FILE = 1_000
# A syntax error found by libyaml is re-read by PyYAML's own reader, whose messages are
# clearer, when the file is small enough to re-read quickly (~0.4 s at this size).
PURE_REPARSE_CHARS = 256 * 1024

# libyaml when PyYAML was built with it: ~20 times faster, same events and positions
_FAST_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# What YAML 1.2 calls printable, less NEL and the Unicode line separators: they break lines
# for some readers and not others, so every line number would be in doubt.
_NOT_PRINTABLE = "[^\t\n\r\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
# The same for text all ASCII, as intent nearly always is: compiling the class above takes
# several milliseconds of every run, so it is compiled only for a file that needs it.
_NOT_PRINTABLE_ASCII = re.compile("[^\t\n\r\x20-\x7e]")
_SCALAR_TAGS = frozenset({STR_TAG, INT_TAG, FLOAT_TAG, BOOL_TAG, NULL_TAG})
# Parts of a key name that mark its value as a secret: never quoted in a message.
_SECRET_WORDS = frozenset(
    {
        "key",
        "password",
        "passwd",
        "passphrase",
        "pwd",
        "psk",
        "secret",
        "token",
        "hash",
        "private",
        "credential",
        "auth",
        "authentication",
        "apikey",
    }
)
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def secret_key(name: object) -> bool:
    """A key named like a secret (`key`, `password_hash`, `authKey`, `bgp-tokens`)."""
    if not isinstance(name, str):
        return False
    for word in _WORDS.findall(name):
        word = word.lower()
        if word in _SECRET_WORDS or word.removesuffix("s") in _SECRET_WORDS:
            return True
        if word.endswith("es") and word[:-2] in _SECRET_WORDS:
            return True
    return False


def secret_path(path: Path_) -> bool:
    """Whether a value sits anywhere under a key named like a secret."""
    return any(secret_key(part) for part in path)


def _everything(path: Path_) -> bool:
    return True


# Which values a message must never quote, by where they sit in the file's tree.
Hides = Callable[[Path_], bool]


@dataclass
class Budget:
    """Values a whole run may still materialise; shared by every file it reads."""

    nodes: int = field(default_factory=lambda: MAX_NODES_PER_RUN)  # read when a run starts


class _Refused(Exception):
    """A limit was exceeded: the file is refused with this one problem."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


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


def read_file(
    path: Path,
    display_name: str,
    budget: Budget | None = None,
    hide_values: bool = False,
    single: bool = False,
    secret: Hides = secret_path,
) -> tuple[SourceFile | None, list[Problem]]:
    """Parse one file; return its data or the problems that stopped it.

    `budget` is the run's remaining value count (a fresh one per call when None);
    `hide_values` keeps every value out of messages, for files that hold secrets; `single`:
    a file named on its own on the command line (secrets, inventory), which may be a pipe
    (`--secrets <(pass show lab)`) and cannot be split in several. `secret` says which other
    values are never quoted (default: those under any key named like a secret; the intent
    loader, which knows the schema, counts its field names only)."""
    text, problem = _read_text(path, display_name, single)
    if text is None:
        return None, [problem] if problem else []
    unprintable = _control_character(text, display_name)
    if unprintable is not None:
        return None, [unprintable]
    tab_problems = list(_tab_indentation(text, display_name))
    if tab_problems:
        return None, tab_problems
    with _collector_paused():
        return _parse(
            text, display_name, budget or Budget(), _everything if hide_values else secret
        )


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Parsing makes a tree of objects without cycles, all kept: the cyclic garbage collector
    would rescan it again and again as it grows (a third of the time of a large file)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _parse(
    text: str, display_name: str, budget: Budget, hides: Hides
) -> tuple[SourceFile | None, list[Problem]]:
    composer = _Composer(display_name, budget, hides=hides)
    try:
        root = composer.compose(text)
    except _Refused as exc:
        return None, [*composer.problems, exc.problem]
    if composer.problems:
        return None, composer.problems
    if root is None:
        return SourceFile(display_name, None), []
    builder = _Builder(display_name, _Count(budget), hides)
    try:
        data = builder.build(root, ())
    except _Refused as exc:
        return None, [exc.problem]
    builder.positions[()] = Location(display_name, 1, 1)
    builder.value_positions[()] = _loc(display_name, root.start_mark)
    source = SourceFile(display_name, data, builder.positions, builder.value_positions)
    return source, builder.problems


def _read_text(path: Path, name: str, single: bool = False) -> tuple[str | None, Problem | None]:
    """The file as text, read only when it is a regular file (or, `single`, a pipe) within
    MAX_FILE_BYTES."""
    at = Location(name, 1, 1)
    try:
        # A pipe named by the user is opened once, waiting for its writer as `cat` would: a
        # second open after a first had let the writer write and close waited for ever.
        # Anything else non-blocking: a FIFO named *.yaml must not hang the run before fstat
        # refuses it.
        waits = single and stat.S_ISFIFO(os.stat(path).st_mode)
        fd = os.open(path, os.O_RDONLY | (0 if waits else getattr(os, "O_NONBLOCK", 0)))
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            piped = single and stat.S_ISFIFO(info.st_mode)
            if not stat.S_ISREG(info.st_mode) and not piped:
                return None, Problem(
                    at, "not a regular file; intent files are plain files", "unreadable"
                )
            if info.st_size > MAX_FILE_BYTES:
                return None, _too_large(at, info.st_size, single)
            if piped and not waits:  # it became a pipe between the two looks
                return None, Problem(at, "this file changed while it was read", "unreadable")
            data = _read_up_to(handle, MAX_FILE_BYTES + 1)
    except OSError as exc:
        return None, Problem(
            at, f"cannot read this file: {exc.strerror or 'I/O error'}", "unreadable"
        )
    if len(data) > MAX_FILE_BYTES:  # it grew while we looked, or a pipe is that long
        return None, _too_large(at, len(data), single)
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        before = data[: exc.start].decode("utf-8", errors="replace")
        return None, Problem(
            _position(before, len(before), name),
            f"not UTF-8 text: byte 0x{data[exc.start]:02x} here is not part of a UTF-8 "
            "character; save the file as UTF-8",
            "encoding",
        )


def _read_up_to(handle: Any, limit: int) -> bytes:
    """At most `limit` bytes: a pipe gives its text in pieces."""
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        chunk = handle.read(limit - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _too_large(at: Location, size: int, single: bool = False) -> Problem:
    if single:
        return Problem(
            at,
            f"larger than the {MAX_FILE_BYTES:,} bytes meetme reads from one file; is this "
            "the right file?",
            "too-large",
        )
    return Problem(
        at,
        f"file of {size:,} bytes is larger than the {MAX_FILE_BYTES:,} bytes meetme reads per "
        "intent file; split it into several files",
        "too-large",
    )


def _position(text: str, index: int, name: str) -> Location:
    """The line and column of text[index], counting \\n, \\r\\n and a lone \\r as YAML does."""
    before = text[:index]
    line = before.count("\n") + before.count("\r") - before.count("\r\n") + 1
    last_break = max(before.rfind("\n"), before.rfind("\r"))
    return Location(name, line, index - last_break)


def _control_character(text: str, name: str) -> Problem | None:
    pattern = _NOT_PRINTABLE_ASCII if text.isascii() else re.compile(_NOT_PRINTABLE)
    found = pattern.search(text)
    if found is None:
        return None
    more = sum(1 for _ in islice(pattern.finditer(text, found.end()), 999))
    also = f" (and {'at least ' if more == 999 else ''}{more} more in this file)" if more else ""
    return Problem(
        _position(text, found.start(), name),
        f"control character U+{ord(found.group()):04X} here{also}; intent is printable text: "
        "remove it",
        "encoding",
    )


class _Open:
    """A collection being composed: its node, anchor, the value count before it, and (for a
    mapping) the key awaiting its value."""

    __slots__ = ("anchor", "before", "key", "node", "sequence")

    def __init__(self, node: yaml.CollectionNode, anchor: str | None, before: int) -> None:
        self.node = node
        self.anchor = anchor
        self.before = before
        self.key: yaml.Node | None = None
        self.sequence = isinstance(node, yaml.SequenceNode)


class _Composer:
    """PyYAML's composer, made iterative and bounded: it builds the same node tree from the
    parser's events, refusing too deep a nesting, too many values or aliases, an alias to an
    unfinished anchor (a loop) and any tag beyond YAML's core types, before anything is built.

    It counts values as they will be built, aliases expanded (an anchor's size is known when
    it closes), so an alias bomb is refused at the alias that crosses the limit, in
    microseconds, without building any of it."""

    def __init__(
        self, name: str, budget: Budget, loader: Any = _FAST_LOADER, hides: Hides = secret_path
    ) -> None:
        self.name = name
        self.budget = budget
        self.loader = loader
        self.hides = hides  # which values no message quotes (all, in a secrets file)
        self.problems: list[Problem] = []
        self._resolve: Callable[..., str] = yaml.resolver.Resolver().resolve
        self._anchors: dict[str, tuple[yaml.Node, int]] = {}  # node, values an alias builds
        self._open: list[_Open] = []
        self._root: yaml.Node | None = None
        self._values = 0
        self._limit = min(MAX_NODES_PER_FILE, budget.nodes)
        self._aliases = 0
        self._documents = 0
        self._handlers: dict[type, Callable[[Any], None]] = {
            yaml.ScalarEvent: self._scalar,
            yaml.MappingStartEvent: self._start,
            yaml.SequenceStartEvent: self._start,
            yaml.MappingEndEvent: self._end,
            yaml.SequenceEndEvent: self._end,
            yaml.AliasEvent: self._alias,
            yaml.DocumentStartEvent: self._document,
        }

    def compose(self, text: str) -> yaml.Node | None:
        handlers = self._handlers
        try:
            for event in yaml.parse(text, Loader=self.loader):
                handler = handlers.get(type(event))
                if handler is not None:
                    handler(event)
        except yaml.YAMLError as exc:
            raise _Refused(self._syntax_error(exc, text)) from None
        return self._root

    def _syntax_error(self, exc: yaml.YAMLError, text: str) -> Problem:
        """libyaml's error, or PyYAML's clearer one for the same text when it is quick to
        get: PyYAML's reader, under the same bounds, also finds a nesting too deep before
        libyaml's own limit (1,000) would."""
        if self.loader is not yaml.SafeLoader and len(text) <= PURE_REPARSE_CHARS:
            try:
                _Composer(self.name, self.budget, yaml.SafeLoader, self.hides).compose(text)
            except _Refused as pure:
                return pure.problem
        if isinstance(exc, yaml.MarkedYAMLError):
            return _syntax_problem(exc, self.name)
        return Problem(
            Location(self.name, 1, 1), f"YAML syntax error: {clip(str(exc), 200)}", "yaml-syntax"
        )

    def _document(self, event: yaml.DocumentStartEvent) -> None:
        self._documents += 1
        if self._documents > 1:
            raise _Refused(
                Problem(
                    _loc(self.name, event.start_mark),
                    "a second YAML document starts here ('---'); an intent file holds one "
                    "document: remove the '---' line or move what follows into its own file",
                    "multi-document",
                )
            )

    def _scalar(self, event: yaml.ScalarEvent) -> None:
        self._values += 1
        if self._values > self._limit:
            self._too_many(event)
        tag = event.tag
        if tag is None or tag == "!":
            # only a plain scalar is resolved (true, 12, ~); a quoted one is text
            implicit = event.implicit[0]
            tag = (
                self._resolve(yaml.ScalarNode, event.value, (True, False)) if implicit else STR_TAG
            )
        elif tag not in _SCALAR_TAGS:
            self._unknown_tag(event, tag)
        marks: tuple[Any, Any] = (event.start_mark, event.end_mark)
        # libyaml says '' for a plain scalar, PyYAML None
        node = yaml.ScalarNode(tag, event.value, *marks, style=event.style or None)
        if event.anchor is not None:
            self._anchor(event.anchor, node, 1)
        self._add(node)

    def _start(self, event: yaml.CollectionStartEvent) -> None:
        before = self._values
        self._values += 1
        if self._values > self._limit:
            self._too_many(event)
        if len(self._open) >= MAX_DEPTH:
            raise _Refused(
                Problem(
                    _loc(self.name, event.start_mark),
                    f"nested deeper than {MAX_DEPTH} levels here; intent is a few levels deep: "
                    "look for an unclosed '[' or '{' or runaway indentation",
                    "too-deep",
                )
            )
        mapping = isinstance(event, yaml.MappingStartEvent)
        tag = event.tag
        if tag is None or tag == "!":
            tag = MAP_TAG if mapping else SEQ_TAG
        elif tag != (MAP_TAG if mapping else SEQ_TAG):
            self._unknown_tag(event, tag)
        start: Any = event.start_mark
        kind = yaml.MappingNode if mapping else yaml.SequenceNode
        self._open.append(_Open(kind(tag, [], start, None, event.flow_style), event.anchor, before))

    def _end(self, event: yaml.CollectionEndEvent) -> None:
        done = self._open.pop()
        done.node.end_mark = event.end_mark
        if done.anchor is not None:
            self._anchor(done.anchor, done.node, self._values - done.before)
        self._add(done.node)

    def _add(self, node: yaml.Node) -> None:
        if not self._open:
            self._root = node
            return
        parent = self._open[-1]
        if parent.sequence:
            parent.node.value.append(node)
        elif parent.key is None:
            parent.key = node
        else:
            parent.node.value.append((parent.key, node))
            parent.key = None

    def _too_many(self, event: yaml.Event) -> None:
        if self._values > MAX_NODES_PER_FILE:
            raise _Refused(_too_many(self.name, event.start_mark, "this file"))
        self.budget.nodes = 0  # spent: each later file is refused at its first value
        raise _Refused(_too_many(self.name, event.start_mark, "the intent as a whole"))

    def _alias(self, event: yaml.AliasEvent) -> None:
        self._aliases += 1
        if self._aliases > MAX_ALIASES_PER_FILE:
            raise _Refused(
                Problem(
                    _loc(self.name, event.start_mark),
                    f"more than {MAX_ALIASES_PER_FILE:,} aliases (*name) in this file; write "
                    "the values out",
                    "too-many-aliases",
                )
            )
        found = self._anchors.get(str(event.anchor))
        if found is None:  # also an alias inside its own anchor: a loop
            raise _Refused(
                Problem(
                    _loc(self.name, event.start_mark),
                    f"YAML syntax error: found undefined alias{self._named('*', event.anchor)}; "
                    "quote a value that starts with '*', or define its anchor "
                    "(&name) before it and outside it",
                    "yaml-syntax",
                )
            )
        node, size = found
        self._values += size
        if self._values > self._limit:
            self._too_many(event)
        self._add(node)

    def _anchor(self, anchor: str, node: yaml.Node, size: int) -> None:
        first = self._anchors.get(anchor)
        if first is not None:
            mark = first[0].start_mark
            at = f"line {mark.line + 1}, column {mark.column + 1}"
            raise _Refused(
                Problem(
                    _loc(self.name, node.start_mark),
                    f"YAML syntax error: anchor{self._named('&', anchor)} is defined twice "
                    f"(first at {at}); rename one",
                    "yaml-syntax",
                )
            )
        self._anchors[anchor] = (node, size)

    def _named(self, sigil: str, text: object, width: int = SHOWN_CHARS) -> str:
        """ " '*name'" for a message, or nothing where the text may be a secret: anywhere in a
        secrets file, or under a key named like a secret (a password written as `!Value`,
        `*Value` or `&Value` is read as a tag, alias or anchor, and must not be shown)."""
        return "" if self._hidden_here() else f" '{sigil}{clip(str(text), width)}'"

    def _hidden_here(self) -> bool:
        """Whether a value being composed at this point must not be quoted: `hides` of the
        keys open above it (an item of a list counts as item 0, whichever it is)."""
        path: list[str | int] = []
        for o in self._open:
            if o.sequence:
                path.append(0)
            elif o.key is None:
                break  # the text is a key of this mapping: the path above it decides
            elif isinstance(o.key, yaml.ScalarNode):
                path.append(o.key.value)
            else:
                return True  # a key that is a collection names nothing the schema knows
        return self.hides(tuple(path))

    def _unknown_tag(self, event: yaml.NodeEvent, tag: str) -> None:
        written = tag.replace("tag:yaml.org,2002:", "!!")
        self.problems.append(
            Problem(
                _loc(self.name, event.start_mark),
                f"unknown YAML tag{self._named('', written, 40)}; intent is plain YAML (text, "
                "numbers, true/false, lists, mappings): remove the tag, and write a secret as a "
                'reference ("secret:NAME")',
                "yaml-tag",
            )
        )


def _too_many(name: str, mark: Any, where: str) -> Problem:
    limit = MAX_NODES_PER_FILE if where == "this file" else MAX_NODES_PER_RUN
    return Problem(
        _loc(name, mark),
        f"more than {limit:,} values in {where} (aliases expanded); meetme refuses so much "
        "intent rather than run out of memory: look for an alias bomb or a runaway generator, "
        "or split the intent",
        "too-many-values",
    )


def _tab_indentation(text: str, name: str) -> Iterator[Problem]:
    if "\t" not in text:
        return
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
    # the parser's own words quote at most a token; keep even that short and printable
    return Problem(where, f"YAML syntax error: {clip(what, 300)}", "yaml-syntax")


def _loc(name: str, mark: Any) -> Location:
    """Where a mark of PyYAML's reader or of libyaml points (the typing stubs tell them apart)."""
    if mark is None:
        return Location(name, 1, 1)
    return Location(name, mark.line + 1, mark.column + 1)


@dataclass
class _Count:
    """Values built so far in a file, and what the run may still build."""

    budget: Budget
    values: int = 0


class _Builder:
    """Turns a composed node tree into dicts, lists and scalars, recording positions."""

    def __init__(self, name: str, count: _Count, hides: Hides = secret_path) -> None:
        self.name = name
        self.count = count
        self.hides = hides
        self.positions: dict[Path_, Location] = {}
        self.value_positions: dict[Path_, Location] = {}
        self.problems: list[Problem] = []

    def problem(self, node: yaml.Node, message: str, kind: str) -> None:
        self.problems.append(Problem(_loc(self.name, node.start_mark), message, kind))

    def build(self, node: yaml.Node, path: Path_) -> Any:
        self._materialise(node)
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, path)
        if isinstance(node, yaml.SequenceNode):
            items = []
            for index, item in enumerate(node.value):
                self.positions[(*path, index)] = self.value_positions[(*path, index)] = _loc(
                    self.name, item.start_mark
                )
                items.append(self.build(item, (*path, index)))
            return items
        assert isinstance(node, yaml.ScalarNode)
        return self._scalar(node, path)

    def _materialise(self, node: yaml.Node) -> None:
        """Count a value about to be built: an alias builds its anchor's values again, which
        is how nine lines of aliases become a billion values."""
        self.count.values += 1
        self.count.budget.nodes -= 1
        if self.count.values > MAX_NODES_PER_FILE:
            raise _Refused(_too_many(self.name, node.start_mark, "this file"))
        if self.count.budget.nodes < 0:
            raise _Refused(_too_many(self.name, node.start_mark, "the intent as a whole"))

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
            self._materialise(key_node)  # a key is stored too: counted as the composer does
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
                copy = _Builder(self.name, self.count, self.hides)
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
                f"{noun} '{clip(key, 64)}' is defined twice in this file (first at {at}); "
                f"rename or remove one"
            )
        return f"key '{clip(key, 64)}' is written twice in this mapping (first at {at}); keep one"

    def _scalar(self, node: yaml.ScalarNode, path: Path_) -> Any:
        text = node.value
        if node.style is not None or node.tag == STR_TAG:
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
                f'quote it: "{text}"'
                if self._quoted(text, path)
                else f"this is the boolean {meaning} in YAML 1.1, not text; quote it",
                "yaml-ambiguous",
            )
            return text
        if node.tag == INT_TAG:
            return self._integer(node, path)
        if node.tag == FLOAT_TAG:
            try:
                return _spelled(float(text.replace("_", "")), text)
            except ValueError:
                self.problem(
                    node,
                    f"{self._quoted(text, path) or 'this'} is not a number YAML 1.2 "
                    "understands; quote it",
                    "yaml-ambiguous",
                )
                return text
        # timestamps and anything else stay text; the schema decides what they mean
        return text

    def _quoted(self, text: str, path: Path_) -> str:
        """How a message may quote a value: not at all where `hides` says it may be a secret."""
        return "" if self.hides(path) else shown(text)

    def _integer(self, node: yaml.ScalarNode, path: Path_) -> Any:
        text = node.value
        octal_looking = bool(_OCTAL_LOOKING.fullmatch(text)) and bool(text.strip("+-0_"))
        if ":" not in text and not octal_looking and _YAML11_ONLY.fullmatch(text):
            # `1_01` and `0b1100101` are numbers in YAML 1.1 only; YAML 1.2 reads them as text
            try:
                number = int(text.replace("_", ""), 0)
            except ValueError:
                number = None
            quoted = self._quoted(text, path)
            read_as = f"the number {number}" if number is not None and quoted else "a number"
            self.problem(
                node,
                f"{quoted or 'this'} is {read_as} in YAML 1.1 only (YAML 1.2 reads it as "
                + (
                    f'text); write {number} for the number, or quote it ("{clip(text)}") for text'
                    if number is not None and quoted
                    else "text); write the number plainly, or quote it for text"
                ),
                "yaml-ambiguous",
            )
            return text
        if ":" not in text and not octal_looking:
            try:
                return _spelled(int(text.replace("_", ""), 0), text)
            except ValueError:  # also more digits than Python converts (4,300)
                quoted = self._quoted(text, path) or "this"
                self.problem(
                    node,
                    f"{quoted} is not an integer YAML 1.2 understands; quote it",
                    "yaml-ambiguous",
                )
                return text
        if not self._quoted(text, path):  # a secret: say what YAML made of it, never what it is
            self.problem(
                node,
                "this is a base-60 or octal number in YAML 1.1, not text; quote it",
                "yaml-ambiguous",
            )
        elif ":" in text:
            self.problem(
                node,
                f"{clip(text)} is the base-60 number {_sexagesimal(text)} in YAML 1.1, not the "
                f'text {shown(text)}; quote it: "{clip(text)}"',
                "yaml-ambiguous",
            )
        else:
            sign = "-" if text.startswith("-") else ""
            decimal = sign + text.replace("_", "").lstrip("+-").lstrip("0")
            octal = _octal(text)
            read_as = f", i.e. {shown(octal)}" if octal is not None else ""
            self.problem(
                node,
                f"{clip(text)} has a leading zero: YAML 1.1 reads it as octal{read_as}; "
                f'write {clip(decimal)} for the number, or quote it ("{clip(text)}") for text',
                "yaml-ambiguous",
            )
        return text


class _SpelledInt(int):
    """A number written otherwise than Python writes it (`0x0c`, `+12`): as text, what was
    written, so a message that says to quote it for text quotes the user's spelling (`rack:
    0x0c` is the rack "0x0c", not "12"). The schema makes a plain number of it."""

    spelling = ""

    def __str__(self) -> str:
        return self.spelling


class _SpelledFloat(float):
    """`1.10`, `1e3`: as _SpelledInt (`rack: 1.10` is the rack "1.10", not "1.1")."""

    spelling = ""

    def __str__(self) -> str:
        return self.spelling


def _spelled(number: int | float, text: str) -> int | float:
    """`number`, keeping `text` for messages where Python would write it otherwise."""
    with contextlib.suppress(ValueError):  # a hexadecimal past the 4,300 digits str() writes
        if str(number) == text:
            return number
    kept = _SpelledInt(number) if isinstance(number, int) else _SpelledFloat(number)
    kept.spelling = text
    return kept


def _sexagesimal(text: str) -> str:
    if len(text) > SHOWN_CHARS:  # 60**n of a long runaway value costs more than it tells
        return "(too long to compute)"
    value = 0
    for part in text.lstrip("+-").replace("_", "").split(":"):
        value = value * 60 + int(part)
    return str(-value if text.startswith("-") else value)


def _octal(text: str) -> int | None:
    try:
        return int(text.replace("_", ""), 8)
    except ValueError:  # 09 holds a digit octal has not: YAML 1.1 reads it as text or fails
        return None
