"""Content hashes of the rendered folder: what lets `render`, `check` and `diff` redo only the
devices that changed.

`render` writes `rendered/.meetme-hashes.json` (outputs.HASHES) together with the rendered files,
in the same atomic swap, and nothing else writes it. Per device it records the digest of the
device model (its JSON serialisation: the model is immutable and holds everything the device's
templates read), the digest of every template its files asked for, the digest of every file it
wrote and the device's CFG-* hits. A later run reuses a device, reading its files back instead
of rendering and linting them, only when all of these still hold:

- the file was written by this meetme: same version, same Python, Jinja2 and PyYAML, and same
  code (digest of the modules that shape and render a model and lint the text:
  generators/model.py (its properties reach the templates), generators/render.py and
  generators/sources.py, the modules its fence against unsafe values reads (intent/types.py,
  core/secret_refs.py),
  generators/platforms/, validators/config_lint/, this module and meetme/devicework.py);
  anything else discards the whole file; each entry's signature covers this stamp too, so an
  edited stamp voids every entry;
- the device's model digest is the same (all of it but UNRENDERED; models are always built:
  rules and the config lint read all of them, and the hash must be over the model to be exact);
- every template it asked for has the same digest (a template it did not ask for cannot change
  its output; one it asked for that was missing must still be missing);
- each of its files is on disk, a regular file listed in the marker, with the digest recorded.

- the entry carries this user's signature: an HMAC-SHA256 under a key kept in the user's private
  meetme folder (core.userdir), never in the repository. A hash file is committed output that
  anyone can edit: without the signature, a hand-edited rendered file with its digest edited
  to match would pass `meetme check`, the merge gate. A hash file from another machine or user
  (a CI runner's first run) is therefore never trusted: every device is rendered.

The file also holds the lint record (meetme/record.py) on the line after the stamp: what the
lint of the whole intent found and every device's file digests, for `lint`, `render`, `check`
and `diff --base` on an intent unchanged since; it signs the digest of the file's other lines.

A missing, unreadable, malformed or foreign hash file, or one of another meetme, is no error:
every device is rendered as if there were none. Its signatures make the file differ between
users, so it is not committed (the repository's .gitignore lists it); `meetme diff --base`
reuses the base side's where it is there and signed by this user, else the working tree's (exact:
an entry serves only a model of the same digest).
"""

from __future__ import annotations

import hashlib
import json
import platform
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import yaml

from meetme import devicework
from meetme.core.findings import Finding
from meetme.devicework import Hit, Outcome
from meetme.generators.model import DeviceModel
from meetme.generators.platforms import PLATFORMS
from meetme.generators.sources import template_digest
from meetme.outputs import read_manifest, sha256
from meetme.record import (
    RECORD_AT,
    RECORD_LINE,
    hash_file_of,
    listed_text,
    mac,
    record_json,
    signed,
    signing_key,
)

FORMAT = 1
ABOUT = (
    "meetme owns this file: content hashes of the rendered files, written by `meetme render` "
    "with them; a render that cannot trust it renders every device again."
)


# Left out of a model's digest: where the device is declared, as a path relative to the working
# directory (`meetme diff` builds the base's models from a temporary folder). No template or
# config lint check reads it (tests/test_incremental.py holds them to that).
UNRENDERED = frozenset({"source"})


def model_digest(model: DeviceModel) -> str:
    return sha256(model.model_dump_json(exclude=set(UNRENDERED)).encode("utf-8"))


@dataclass(frozen=True)
class Entry:
    model: str
    templates: dict[str, str]
    files: dict[str, str]  # relative path -> sha256 of its bytes
    hits: tuple[Hit, ...]


class Cache:
    """The hash file of one rendered folder, and the folder to read reused files from."""

    def __init__(self, folder: Path, entries: Mapping[str, Entry]) -> None:
        self.folder = folder
        self.entries = dict(entries)
        self._listed = read_manifest(folder) or set()

    @classmethod
    def load(cls, folder: Path) -> Cache | None:
        """The folder's hash file when it is this meetme's and well formed, else None."""
        found = hash_file_of(folder)
        parsed = found[1] if found is not None else None
        if parsed is None or parsed.get("stamp") != stamp():
            return None
        devices = parsed.get("devices")
        if not isinstance(devices, dict):
            return None
        key = signing_key()
        if key is None:
            return None
        entries = {
            name: entry
            for name, raw in devices.items()
            if (entry := _entry(raw)) and isinstance(raw, dict) and signed(key, name, _bound(raw))
        }
        return cls(folder, entries)

    def reuse(self, model: DeviceModel, digest: str, templates: Path | None) -> Outcome | None:
        """The device's outcome read back from the folder, when nothing it depends on changed."""
        entry = self.entries.get(model.hostname)
        if entry is None or entry.model != digest or set(entry.files) != _own_files(model):
            return None
        if any(
            template_digest(model.platform, templates, name) != d
            for name, d in entry.templates.items()
        ):
            return None
        files: dict[str, str] = {}
        for relative, expected in entry.files.items():
            text = listed_text(self.folder, self._listed, relative, expected)
            if text is None:
                return None
            files[relative] = text
        return Outcome(files, dict(entry.templates), entry.hits)


def _own_files(model: DeviceModel) -> set[str]:
    """The names of the files the device's platform writes for it (render.render's keys)."""
    return {f"{model.site}/{model.hostname}{o.suffix}" for o in PLATFORMS[model.platform].files}


def hashes_text(
    outcomes: Iterable[tuple[str, str, Outcome]],
    record: tuple[str, list[Finding], Mapping[str, str]] | None = None,
) -> str:
    """The hash file for (hostname, model digest, outcome) of every rendered device, with the
    lint record (key, findings, each device's main file: meetme/record.py) when there is one,
    on its own line after the stamp, signing the digest of all the other lines."""
    devices = sorted(outcomes)
    key = signing_key()
    lines = ["{", f'"about": {json.dumps(ABOUT)},', f'"stamp": {json.dumps(stamp())},']
    lines.append('"devices": {')
    digests: dict[str, tuple[str, dict[str, str]]] = {}  # device -> (main file, file digests)
    for index, (name, digest, outcome) in enumerate(devices):
        files = {p: sha256(t.encode("utf-8")) for p, t in sorted(outcome.files.items())}
        entry = {
            "model": digest,
            "templates": dict(sorted(outcome.templates.items())),
            "files": files,
            "hits": [list(h) for h in outcome.hits],
        }
        entry["mac"] = mac(key, name, _bound(entry)) if key is not None else ""
        comma = "," if index < len(devices) - 1 else ""
        lines.append(f"{json.dumps(name)}: {json.dumps(entry, sort_keys=True)}{comma}")
        if record is not None:
            digests[name] = (record[2][name], files)
    lines += ["}", "}", ""]  # the last: after the final newline
    if record is not None:
        rest = sha256("\n".join(lines).encode("utf-8"))
        lines.insert(RECORD_AT, f"{RECORD_LINE}{record_json(record[0], record[1], digests, rest)},")
    return "\n".join(lines)


def _bound(entry: Mapping[str, Any]) -> dict[str, Any]:
    """What an entry's signature covers: the entry and the stamp of the meetme that wrote it,
    so that a stamp edited to the current code's does not make an older meetme's output
    current (the stamp line itself is unsigned)."""
    return {**entry, "stamp": stamp()}


_STAMP: dict[str, object] = {}


def stamp() -> dict[str, object]:
    """What must match for any hash to be trusted: the file format, meetme's and Jinja2's
    versions and the digest of the code that renders and lints."""
    if not _STAMP:
        try:
            release = version("meetme")
        except PackageNotFoundError:  # pragma: no cover - meetme runs installed
            release = "unknown"
        _STAMP.update(
            format=FORMAT,
            meetme=release,
            python=platform.python_version(),
            jinja2=version("jinja2"),  # read, not imported: an unchanged site renders nothing
            pyyaml=yaml.__version__,  # writes and reads back every NVUE file
            code=_code_digest(),
        )
    return dict(_STAMP)


def _code_digest() -> str:
    from meetme.core import secret_refs
    from meetme.generators import model, platforms, sources
    from meetme.intent import types
    from meetme.validators import config_lint

    # render's fence against unsafe values reads intent/types.py and core/secret_refs.py
    shaping = (model, sources, devicework, types, secret_refs)
    files = [Path(str(m.__file__)) for m in shaping] + [Path(__file__)]
    # found, not imported: a run whose devices all still hold never needs Jinja2
    render = find_spec("meetme.generators.render")
    files.append(Path(str(render.origin if render is not None else "")))
    for package in (platforms, config_lint):
        files += sorted(Path(str(package.__file__)).parent.rglob("*.py"))
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _entry(raw: Any) -> Entry | None:
    if not isinstance(raw, dict):
        return None
    model, templates, files, hits = (raw.get(k) for k in ("model", "templates", "files", "hits"))
    if not (isinstance(model, str) and isinstance(templates, dict) and isinstance(files, dict)):
        return None
    if not (_str_map(templates) and _str_map(files)):
        return None
    if not isinstance(hits, list) or not all(_hit(h) for h in hits):
        return None
    return Entry(model, dict(templates), dict(files), tuple((a, b, c, d) for a, b, c, d in hits))


def _str_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def _hit(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 4
        and all(isinstance(v, str) for v in value[:2])
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value[2:])
    )
