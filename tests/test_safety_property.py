"""Property: no string written in intent can change the shape of a rendered config.

Every string slot of the schema (a str field, an item of a list of str, a key or value of a
mapping) is found by walking the pydantic models, so a new field is covered without touching
this test. For each slot, one occurrence in the example intent (or, when the example never
writes it, a key added to an object that could hold it) gets a generated hostile string.
Then either the intent is refused (IntentError, exit 2) with a problem on that value's line,
or every device renders to exactly as many lines as before: nothing was injected.
"""

from __future__ import annotations

import atexit
import json
import re
import shutil
import tempfile
import types
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import pytest
import yaml
from conftest import EXAMPLE_INTENT
from hypothesis import given, settings
from hypothesis import strategies as st
from meetme.generators.resolve.fabric import resolve_fabric
from meetme.validators.engine import run_rules
from pydantic import BaseModel

from meetme.core.problems import IntentError, Location
from meetme.intent.loader import load_intent
from meetme.intent.schema import Intent
from meetme.pipeline import build_models, render_all

# What the example never writes, appended so that its fields are exercised too: (file, text).
SEEDS: list[tuple[str, str]] = [
    (
        "organisation.yaml",
        "waivers:\n  - {rule: PHY-001, object: sites.aus1, reason: rebuild, owner: netops,"
        " expires: 2099-01-01}\nstandards:\n  severity: {PHY-001: warning}\n",
    ),
    (
        "aus1/links.yaml",
        # one more explicit link, after the border pair's two
        "      - {a: {device: aus1-lf1, interface: swp33}, b: {device: aus1-lf2,"
        " interface: swp33}, index: 100, speed: 400G}\n",
    ),
    (
        "aus1/devices.yaml",
        "    redundancy_groups:\n      borders: {members: [aus1-br1, aus1-br2]}\n",
    ),
    # a VRF over SRv6 (the example asks none: mel1's EOS borders cannot carry it)
    ("srv6.yaml", "  vrfs:\n    storage: {id: 10, sites: [aus1, mel1]}\n"),
]
# (file, text, the text in its place): a site's private aggregates (the example declares its
# public ones only)
REWRITES: list[tuple[str, str, str]] = [
    ("aus1/site.yaml", '"2001:db8:4000::/40"]}', '"2001:db8:4000::/40"], private: [10.0.0.0/12]}'),
]


def _dci_seed() -> list[tuple[str, str]]:
    """While the example has no `dci:`, a second site (per1) and DCI circuits to it, from the
    DCI tests' data, give the DCI keys a home; once the example has its own, it does."""
    if any(re.search(r"^dci:", p.read_text(), re.M) for p in EXAMPLE_INTENT.rglob("*.y*ml")):
        return []
    data = Path(__file__).resolve().parent / "data/dci"
    text = (data / "mel1.yaml").read_text() + (data / "dci.yaml").read_text()
    return [("per1.yaml", text.replace("mel1", "per1").replace("192.168.20.", "192.168.21."))]


SEEDS += _dci_seed()

# Each generated string holds at least one of these: line breaks of every kind, control
# characters, config and YAML structure, a secret placeholder, a format field, bulk.
HOSTILE = [
    "\n",
    "\r",
    "\r\n",
    "\t",
    "\x00",
    "\x07",
    "\x1b[2J",
    "\x7f",
    "\x85",
    "\u2028",
    "\u2029",
    "\u202e",
    "\ufeff",
    "\n!\nusername backdoor privilege 15 role network-admin nopassword\n",
    "\nusername x\n group root-lr\n",
    "\n  extra-key: {injected: true}\n",
    '{"a": 1}',
    "[x, y]",
    "{n}{0}",
    "{n:>99}",
    "!",
    "#",
    " # comment",
    "<<secret:admin-hash>>",
    "<<SECRET:x>>",
    '"',
    "\\",
    "x" * 3000,
]


@dataclass(frozen=True)
class Slot:
    """Where in the schema a string goes: `model.field`, and how (value, item, key, entry)."""

    model: str
    field: str
    role: Literal["value", "item", "key", "entry"]

    def __str__(self) -> str:
        return f"{self.model}.{self.field}[{self.role}]"


def _unwrap(annotation: Any) -> Any:
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
        elif origin in (Union, types.UnionType):
            options = [a for a in get_args(annotation) if a is not type(None)]
            if len(options) != 1:
                return annotation
            annotation = options[0]
        else:
            return annotation


def _is_string(annotation: Any) -> bool:
    core = _unwrap(annotation)
    if get_origin(core) is Literal:
        return all(isinstance(a, str) for a in get_args(core))
    return core is str


def schema_slots() -> list[Slot]:
    """Every string slot of the intent schema, from the models themselves."""
    slots: list[Slot] = []
    seen: set[type[BaseModel]] = set()
    pending: list[type[BaseModel]] = [Intent]
    while pending:
        model = pending.pop()
        if model in seen:
            continue
        seen.add(model)
        for name, info in model.model_fields.items():
            core = _unwrap(info.annotation)
            origin = get_origin(core)
            if _is_string(core):
                slots.append(Slot(model.__name__, name, "value"))
            elif origin is list and _is_string(get_args(core)[0]):
                slots.append(Slot(model.__name__, name, "item"))
            elif origin is dict:
                key, value = get_args(core)
                if _is_string(key):
                    slots.append(Slot(model.__name__, name, "key"))
                if _is_string(value):
                    slots.append(Slot(model.__name__, name, "entry"))
            for inner in (core, *get_args(core)):
                inner = _unwrap(inner)
                if isinstance(inner, type) and issubclass(inner, BaseModel):
                    pending.append(inner)
    return sorted(set(slots), key=str)


def _descend(current: Any, part: str | int) -> tuple[Any, tuple[str, str] | None]:
    """The type one step down a data path, and (model, field) when the step is a field."""
    current = _unwrap(current)
    if isinstance(current, type) and issubclass(current, BaseModel):
        info = current.model_fields.get(str(part))
        return (None, None) if info is None else (info.annotation, (current.__name__, str(part)))
    if get_origin(current) is dict:
        return get_args(current)[1], None
    if get_origin(current) is list:
        return get_args(current)[0], None
    return None, None


def _slot_of(path: tuple[str | int, ...], is_key: bool) -> Slot | None:
    """The slot of the value (or, `is_key`, of the mapping key) at a data path."""
    current: Any = Intent
    owner: tuple[str, str] | None = None
    field_type: Any = None
    steps = 0  # steps taken since the last model field: into a list or a mapping
    for part in path[:-1] if is_key else path:
        current, field = _descend(current, part)
        if current is None:
            return None
        if field is not None:
            owner, field_type, steps = field, current, 0
        else:
            steps += 1
    if owner is None:
        return None
    container = _unwrap(field_type)
    if is_key:
        string_keys = get_origin(container) is dict and _is_string(get_args(container)[0])
        return Slot(*owner, "key") if steps == 0 and string_keys else None
    if not _is_string(current) or steps > 1:
        return None
    if steps == 0:
        return Slot(*owner, "value")
    return Slot(*owner, "entry" if get_origin(container) is dict else "item")


def _container(path: tuple[str | int, ...]) -> Any:
    """The declared type at a data path (None when the schema has no such path)."""
    current: Any = Intent
    for part in path:
        current, _ = _descend(current, part)
    return current


@dataclass(frozen=True)
class Edit:
    """How to put a string into one file: replace [start, end) with `key: value` or value."""

    file: str  # relative to the intent folder
    start: int
    end: int
    template: str  # '{}' stands for the JSON-quoted string
    line: int  # 1-based line the string lands on
    original: str = ""  # the text it replaces: hostile text is added to a valid value


def _yaml_nodes(text: str) -> dict[tuple[int, int], yaml.Node]:
    """Every node of a YAML text by its (line, column), 1-based like meetme's locations."""
    found: dict[tuple[int, int], yaml.Node] = {}
    stack = [yaml.compose(text, Loader=yaml.SafeLoader)]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        found.setdefault((node.start_mark.line + 1, node.start_mark.column + 1), node)
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.extend((key, value))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return found


@cache
def folder() -> Path:
    """A copy of the example intent with SEEDS appended and REWRITES made: every slot has a
    home in it."""
    copy = Path(tempfile.mkdtemp(prefix="meetme-property-")) / "intent"
    atexit.register(shutil.rmtree, copy.parent, ignore_errors=True)
    shutil.copytree(EXAMPLE_INTENT, copy)
    for file, text in SEEDS:
        with (copy / file).open("a") as handle:
            handle.write(text)
    for file, text, rewritten in REWRITES:
        path = copy / file
        assert path.read_text().count(text) == 1, (file, text)
        path.write_text(path.read_text().replace(text, rewritten))
    return copy


@cache
def _nodes(file: str) -> dict[tuple[int, int], yaml.Node]:
    return _yaml_nodes((folder() / file).read_text())


def _relative(file: str) -> str:
    return Path(file).resolve().relative_to(folder().resolve()).as_posix()


def _replace(where: Location) -> Edit:
    """Replace the scalar (or key) written at `where` with the string."""
    file = _relative(where.file)
    node = _nodes(file)[(where.line, where.column)]
    original = node.value if isinstance(node, yaml.ScalarNode) else ""
    return Edit(file, node.start_mark.index, node.end_mark.index, "{}", where.line, original)


def _insert(where: Location, field: str, role: str) -> Edit | None:
    """Add the key `field`, holding the string, to the mapping written at `where`."""
    file = _relative(where.file)
    node = _nodes(file).get((where.line, where.column))
    if not isinstance(node, yaml.MappingNode) or not node.value:
        return None
    value = {"value": "{}", "item": "[{}]", "key": "{{{}: x}}", "entry": "{{x: {}}}"}[role]
    if node.flow_style:
        at = node.start_mark.index + 1
        return Edit(file, at, at, f"{field}: {value}, ", where.line)
    first = node.value[0][0].start_mark
    text = f"{field}: {value}\n{' ' * first.column}"
    return Edit(file, first.index, first.index, text, first.line + 1)


@cache
def edits() -> dict[Slot, Edit]:
    """One way to write a string into each slot of the schema: replace an occurrence, else
    add the field to an object of its model."""
    loaded = load_intent(folder())
    found: dict[Slot, Edit] = {}
    for path, where in sorted(loaded.value_positions.items(), key=lambda i: str(i[0])):
        slot = _slot_of(path, is_key=False)
        if slot is not None:
            found.setdefault(slot, _replace(where))
    for path, where in sorted(loaded.positions.items(), key=lambda i: str(i[0])):
        slot = _slot_of(path, is_key=True) if path and isinstance(path[-1], str) else None
        if slot is not None:
            found.setdefault(slot, _replace(where))
    holders = sorted(loaded.value_positions.items(), key=lambda i: str(i[0]))
    for slot in schema_slots():
        for path, where in holders:
            if slot in found:
                break
            model = _unwrap(_container(path))
            if getattr(model, "__name__", None) == slot.model:
                edit = _insert(where, slot.field, slot.role)
                if edit is not None:
                    found[slot] = edit
    return found


def _render(intent: Path) -> dict[str, int]:
    """Lint (schema, references, rules) and render in memory: lines per rendered file."""
    loaded = load_intent(intent)
    fabrics = resolve_fabric(loaded)
    run_rules(loaded, dict(fabrics))
    files = render_all(build_models(loaded, fabrics))
    return {name: text.count("\n") for name, text in files.items()}


@cache
def _baseline() -> dict[str, int]:
    return _render(folder())


SLOTS = schema_slots()


def test_every_string_slot_of_the_schema_can_be_exercised() -> None:
    """A new string field with no way into the example fails here: add a SEED for it."""
    missing = [str(s) for s in SLOTS if s not in edits()]
    assert missing == []


# (where the hostile part goes in the valid value: start, end, or instead of it; the part;
# text after it)
hostile = st.tuples(
    st.sampled_from(["end", "start", "instead"]),
    st.sampled_from(HOSTILE),
    st.text(max_size=8),
)


@pytest.mark.parametrize("slot", SLOTS, ids=str)
@settings(max_examples=5, deadline=None, derandomize=True, database=None)
@given(case=hostile)
def test_a_hostile_string_is_refused_at_its_line_or_changes_no_line(
    slot: Slot, case: tuple[str, str, str]
) -> None:
    edit = edits().get(slot)
    if edit is None:
        pytest.skip(f"{slot} has no place in the example (see the test above)")
    where, bad, after = case
    valid = edit.original or "swp1"
    value = {"end": valid + bad + after, "start": bad + after + valid}.get(where, bad + after)
    target = folder() / edit.file
    original = target.read_text()
    quoted = json.dumps(value)  # a YAML double-quoted scalar: escapes keep it on one line
    target.write_text(original[: edit.start] + edit.template.format(quoted) + original[edit.end :])
    try:
        shape = _render(folder())
    except IntentError as exc:
        lines = {(p.location.file, p.location.line) for p in exc.problems}
        written = Path(edit.file).name
        assert any(f.endswith(written) and line == edit.line for f, line in lines), (
            f"{slot}: refused, but not at {edit.file}:{edit.line}: "
            + "; ".join(str(p) for p in exc.problems)[:600]
        )
        return
    finally:
        target.write_text(original)
    assert shape == _baseline(), f"{slot}: {value!r} changed the rendered line counts"
