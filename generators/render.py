"""Render a device model through its platform plug-in's Jinja2 templates. A pure function.

A platform may write several files per device (`Platform.files`): `render` returns them all,
{relative path: text}; `render_device` / `output_name` are the device's main file. A model with
a platform gap (`Platform.gaps`, reported by the lint as PLAT-*) is refused before any template
runs: templates print every value the gaps let through and never stop on one.

A second fence behind the schema: whatever a template prints, no model value may hold a
control character (it would end the config line and start another) or a secret placeholder
outside the fields that carry one (a push would replace it with the secret itself).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import re
import sys
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from pathlib import Path
from typing import Any

import jinja2
import jinja2.bccache
from meetme.generators import platforms as platforms_package
from meetme.generators.model import DeviceModel
from meetme.generators.platforms import PLATFORMS, Gap, Platform, only_built_in
from meetme.generators.sources import (
    RenderError,
    output_name,
    settled_checks,
    template_digest,
    template_folder,
)
from pydantic import BaseModel

from meetme.core.problems import shown
from meetme.core.secret_refs import PLACEHOLDER_RE
from meetme.core.userdir import private_dir
from meetme.intent.types import has_placeholder

ENTRY_TEMPLATE = "device.j2"

# The model fields the builders fill with secret_refs.placeholder(...) (generators/model.py):
# the only values that may hold a placeholder, and then nothing else.
SECRET_FIELDS = frozenset({"password", "password_hash"})


class PlatformGapError(RenderError):
    """The model asks for what its platform cannot print. The lint reports each gap as a
    PLAT-* finding first; reaching this means a caller skipped the lint."""

    def __init__(self, label: str, gaps: list[Gap]) -> None:
        self.gaps = gaps
        listed = "; ".join(f"{g.rule} {g.feature}: {g.detail}" for g in gaps)
        super().__init__(f"{label}: the platform cannot print {listed}")


class _UnsafeValue(Exception):
    """A value a template read that must not reach a config; raised inside the template."""


class _FencedEnvironment(jinja2.Environment):
    """Checks every string a template reads from an object (`a.b`, `a['b']`, the `attr` and
    `map` filters), whatever the template then does with it. Printed values cannot be checked
    instead (jinja2's `finalize`): a macro's output is printed too, and holds newlines."""

    # The names of the templates asked for while `render_traced` runs (None otherwise): what
    # a device's output depends on, for the incremental render's content hashes.
    asked: set[str] | None = None

    def get_template(
        self,
        name: str | jinja2.Template,
        parent: str | None = None,
        globals: MutableMapping[str, Any] | None = None,
    ) -> jinja2.Template:
        if self.asked is not None:  # recorded even when missing: creating it changes the output
            self.asked.add(name.name or "" if isinstance(name, jinja2.Template) else name)
        return super().get_template(name, parent, globals)

    def select_template(
        self,
        names: Iterable[str | jinja2.Template],
        parent: str | None = None,
        globals: MutableMapping[str, Any] | None = None,
    ) -> jinja2.Template:
        if self.asked is not None and not isinstance(names, jinja2.Undefined):
            names = list(names)  # read twice: here and by jinja2
            self.asked.update(n.name or "" if isinstance(n, jinja2.Template) else n for n in names)
        return super().select_template(names, parent, globals)

    def getattr(self, obj: Any, attribute: str) -> Any:
        # jinja2's own first step, inlined: templates read ~800 model attributes per device
        try:
            value = getattr(obj, attribute)
        except AttributeError:
            value = super().getattr(obj, attribute)  # an item, or undefined
        if type(value) in _INERT:
            return value
        return _fenced(attribute, value)

    def getitem(self, obj: Any, argument: Any) -> Any:
        name = argument if isinstance(argument, str) else ""
        return _fenced(name, super().getitem(obj, argument))


_INERT = frozenset({int, bool, float, type(None)})  # values with no text to check


def _fenced(name: str, value: Any) -> Any:
    """`value` unchanged when it (or, for a list or mapping, each string in it) is clean."""
    if isinstance(value, str):
        if value.isprintable() and not has_placeholder(value):  # most reads: no list to build
            return value
        texts: list[str] = [value]
    elif isinstance(value, list | tuple):
        texts = [v for v in value if isinstance(v, str)]
    elif isinstance(value, dict):
        texts = [v for item in value.items() for v in item if isinstance(v, str)]
    else:
        return value
    for text in texts:
        problem = _field_problem(name, text)
        if problem is not None:
            raise _UnsafeValue(f"the value {shown(text)} of '{name}' holds {problem}")
    return value


_ENVIRONMENTS: dict[tuple[str, Path | None], tuple[Platform, jinja2.Environment]] = {}


def environment(platform: str, templates: Path | None = None) -> jinja2.Environment:
    """The platform's templates from its plug-in's folder (the installed package's by default),
    or from `templates/<platform>` when a caller passes another templates folder (a test
    rendering a deliberately broken template); the plug-in's filters are registered."""
    plugin = PLATFORMS[platform]
    found = _ENVIRONMENTS.get((platform, templates))
    if found is None or found[0] is not plugin:  # a plug-in registered anew gets a fresh one
        found = _ENVIRONMENTS[(platform, templates)] = (plugin, _environment(plugin, templates))
    return found[1]


def _environment(plugin: Platform, templates: Path | None) -> jinja2.Environment:
    env = _FencedEnvironment(
        loader=_Loader(template_folder(plugin, templates)),
        bytecode_cache=_bytecode_cache(),
        undefined=jinja2.StrictUndefined,  # a missing model field is a bug, never a blank
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,  # device configs, not HTML
    )
    env.filters.update(plugin.filters)
    return env


class _Loader(jinja2.FileSystemLoader):
    """jinja2's loader, whose up-to-date check answers from `_SETTLED` once it held."""

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str, Callable[[], bool]]:
        source, filename, uptodate = super().get_source(environment, template)

        def checked() -> bool:
            held = settled_checks()
            if held is None:
                return uptodate()
            if checked in held:
                return True
            current = uptodate()
            if current:
                held.add(checked)
            return current

        return source, filename, checked


class _QuietBytecodeCache(jinja2.FileSystemBytecodeCache):
    """Jinja2's on-disk cache of compiled templates; a cache it cannot read or write is no
    cache (the template is compiled from its source), never an error."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except (OSError, EOFError, ValueError, TypeError):  # unreadable: compile anew
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """Compiling the 40-odd templates was most of a small site's `meetme lint` (0.5 s); Jinja2
    keeps each compiled template in a user cache folder, keyed by the template's path and a
    hash of its source (so an edited template is compiled again). A compiled template also
    holds what the code around it decided: the environment's options here and the filters
    the plug-ins register (Jinja2 folds a filter of a constant at compile time), and Jinja2's
    own key changes with neither its release nor those. So the folder is named by a digest of
    them (`jinja2-<digest>` in the user's private meetme folder, core.userdir, never the
    repository), the folders of other code are removed, and plug-ins that are not exactly
    meetme's own get no cache."""
    if not only_built_in():
        return None
    name = f"jinja2-{_compile_stamp()}"
    folder = private_dir(name)
    if folder is None:
        return None
    _prune_other_caches(folder.parent, name)
    return _QuietBytecodeCache(str(folder))


@functools.cache
def _compile_stamp() -> str:
    """What a compiled template depends on besides its source: this module (the options), the
    plug-ins (their filters), Jinja2's release and the interpreter's."""
    digest = hashlib.sha256(f"{jinja2.__version__}\0{sys.version}\0".encode())
    plugins = Path(platforms_package.__file__ or "").parent
    for path in [Path(__file__), *sorted(plugins.rglob("*.py"))]:
        digest.update(path.name.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:24]


_OTHER_CACHE = re.compile(r"jinja2(?:-[0-9a-f]{24})?")
_COMPILED = re.compile(r"__jinja2_[0-9a-f]+\.cache")


def _prune_other_caches(parent: Path, keep: str) -> None:
    """Remove the compiled templates of other code (and the folders holding them): only the
    files Jinja2's cache writes, in folders of meetme's own naming; anything else stays."""
    with contextlib.suppress(OSError):
        for folder in parent.iterdir():
            if folder.name == keep or not _OTHER_CACHE.fullmatch(folder.name):
                continue
            if folder.is_symlink() or not folder.is_dir():
                continue
            for entry in folder.iterdir():
                if _COMPILED.fullmatch(entry.name) and entry.is_file() and not entry.is_symlink():
                    entry.unlink()
            with contextlib.suppress(OSError):
                folder.rmdir()  # left in place when something else is in it


def compile_templates(platform: str, templates: Path | None = None) -> None:
    """Compile every template of the platform into its environment's cache (each one read from
    Jinja2's bytecode cache where it is there): what forked workers then inherit. Raises what
    compiling raises (a template's syntax error)."""
    env = environment(platform, templates)
    for name in env.list_templates():
        env.get_template(name)


def render(model: DeviceModel, templates: Path | None = None) -> dict[str, str]:
    """{path relative to the output folder: text} of every file the device's platform writes.
    Raises RenderError: an unsafe model value, a platform gap, or a template that failed."""
    label = f"{_printable(model.hostname)} ({model.platform})"
    if not _clean(model):  # the walk that names the value only when one is bad
        for path, value in _strings(model):
            problem = _field_problem(path.rsplit(".", 1)[-1], value)
            if problem is not None:
                raise RenderError(f"{label}: model value {path} holds {problem}")
    plugin = PLATFORMS[model.platform]
    gaps = plugin.gaps(model)
    if gaps:
        raise PlatformGapError(label, gaps)
    env = environment(model.platform, templates)
    files: dict[str, str] = {}
    for output in plugin.files:
        try:
            text = env.get_template(output.entry).render(device=model, platform=plugin)
        except (jinja2.TemplateError, _UnsafeValue) as exc:
            where = _template_line(exc)
            raise RenderError(f"{label}{where}: {exc}") from None
        lines = "\n".join(line.rstrip() for line in text.splitlines()) + "\n"
        files[f"{model.site}/{model.hostname}{output.suffix}"] = lines
    return files


def render_traced(
    model: DeviceModel, templates: Path | None = None
) -> tuple[dict[str, str], dict[str, str]]:
    """`render`, and {template name: digest of its source} of every template the device's
    files asked for (a missing one digests as "absent"): with the model, all its output
    depends on besides meetme's code."""
    env = environment(model.platform, templates)
    if not isinstance(env, _FencedEnvironment):  # pragma: no cover - always ours
        raise TypeError(type(env).__name__)
    env.asked = set()
    try:
        files = render(model, templates)
        asked = sorted(env.asked)
    finally:
        env.asked = None
    return files, {name: template_digest(model.platform, templates, name) for name in asked}


def render_device(model: DeviceModel, templates: Path | None = None) -> str:
    """The text of the device's main file (its platform's first)."""
    return render(model, templates)[output_name(model)]


def _text_problem(text: str) -> str | None:
    """Values are single lines: not even a tab or a newline is legitimate in one."""
    if text.isprintable():
        return None
    bad = next(ch for ch in text if not ch.isprintable())
    return f"the control character U+{ord(bad):04X}"


def _field_problem(field: str, value: str) -> str | None:
    """Why the value of model field `field` must not reach a config, or None."""
    problem = _text_problem(value)
    trusted = field in SECRET_FIELDS and PLACEHOLDER_RE.fullmatch(value) is not None
    if problem is None and has_placeholder(value) and not trusted:
        problem = "a secret placeholder outside a secret field"
    return problem


# A secret field holding exactly one placeholder, as the model's JSON spells it.
_TRUSTED_JSON = re.compile(
    "|".join(f'"{name}":"{PLACEHOLDER_RE.pattern}"' for name in sorted(SECRET_FIELDS))
)


def _clean(model: BaseModel) -> bool:
    """Whether no string of the model has a `_field_problem`. Where it says no, `render`
    walks again with `_strings` to name the value."""
    return _clean_json(model) or _clean_walk(model)


def _clean_json(model: BaseModel) -> bool:
    """True only where `_clean_walk` is: pydantic's JSON of the model holds every string of
    it and every key, so when that text has no escape (no control character, quote or
    backslash in any string), is printable, and its only placeholders are whole values of
    secret fields, so is every string. A quarter of `_clean_walk`'s time; False (walk)
    on any doubt."""
    try:
        text = model.__pydantic_serializer__.to_json(model, warnings=False).decode("utf-8")
    except (ValueError, TypeError):  # pragma: no cover - a hand-built model's odd value
        return False
    if "\\" in text or not text.isprintable():
        return False
    return text.casefold().count("<<secret:") == len(_TRUSTED_JSON.findall(text))


def _clean_walk(model: BaseModel) -> bool:
    """`_strings`'s walk without building a path for every value."""
    stack: list[tuple[str, Any]] = [("device", model)]
    while stack:
        name, node = stack.pop()
        if isinstance(node, str):
            if _field_problem(name, node) is not None:
                return False
        elif isinstance(node, BaseModel):
            stack.extend(node.__dict__.items())
        elif isinstance(node, dict):
            for key, value in node.items():
                stack.append(("", key))
                stack.append((str(key).rsplit(".", 1)[-1], value))
        elif isinstance(node, list | tuple | set | frozenset):
            stack.extend(("", item) for item in node)  # an item is never a secret field
    return True


def _strings(model: BaseModel) -> Iterator[tuple[str, str]]:
    """(dotted field path, value) of every string in the model, mapping keys included.
    A stack, not recursion: a model built by hand may nest deep."""
    stack: list[tuple[str, Any]] = [("device", model)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, str):
            yield path, node
        elif isinstance(node, BaseModel):
            fields = type(node).model_fields
            stack.extend((f"{path}.{name}", getattr(node, name)) for name in fields)
        elif isinstance(node, dict):
            for key, value in node.items():
                stack.append((f"{path}[{key!r}]", key))
                stack.append((f"{path}.{key}", value))
        elif isinstance(node, list | tuple | set | frozenset):
            stack.extend((f"{path}[{index}]", item) for index, item in enumerate(node))


def _printable(text: str) -> str:
    return text if text.isprintable() else shown(text)


def _template_line(exc: BaseException) -> str:
    """' at templates/<platform>/<file>:<line>' from the traceback jinja2 rewrote, if any."""
    tb = exc.__traceback__
    where = ""
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if filename.endswith(".j2"):
            where = f" at {'/'.join(filename.split('/')[-3:])}:{tb.tb_lineno}"
        tb = tb.tb_next
    return where
