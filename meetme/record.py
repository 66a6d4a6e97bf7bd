"""The lint record: what the last render of an intent found and wrote, so that the same intent,
unchanged, is not worked out again: `lint` prints the recorded findings, `render` writes
nothing while the folder holds exactly what it wrote, `check` compares the recorded files and
`diff --base` reads the base's side back.

`render` adds it to the rendered folder's hash file (meetme/hashes.py): the findings of the
lint it ran first, each device's main file and every file's digest, and the digest of the hash
file's other lines. The findings, and so the files, are a function of these inputs only, and
the record's key is the digest of all of them:

- every file and folder under the intent folder, by name and bytes (a symbolic link by its
  target; anything else, such as a device file, and there is no record);
- meetme's own code and data: every file of its packages (rules, schema, builders, templates,
  hardware catalogue); a process whose platform plug-ins are not exactly meetme's own (one
  registered or replaced at run time, as a test or a site's own plug-in does) has no record;
- the Python interpreter and the installed distributions (each one's name and version);
- the day waivers are judged on (core.findings.current_date: $MEETME_TODAY or the date);
- the working directory and where the intent folder is: every finding's file is named
  relative to the one, from the other.

The key is taken before the render reads the intent and again after it has linted; the
record is written only when both agree, so a file edited during the run never gets findings
that were not worked out from it. Like the rest of the hash file, the record is signed with
this user's key (an HMAC-SHA256, the key in the user's private meetme folder), so a hand-made
record, or one from another user or machine, is never read back.

A lint that finds the record, signed and with the key of the intent as it is now, prints
exactly what linting would print; any other lint (a changed intent, another meetme, another
day, no render yet) lints in full.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import hmac
import importlib.util
import json
import os
import secrets
import stat
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from meetme.core.findings import Finding, WaivedBy, current_date
from meetme.core.problems import Location
from meetme.core.userdir import private_dir
from meetme.outputs import (
    HASHES,
    MARKER,
    OWNED,
    SNIFF_LIMIT,
    folder_entries,
    marker_text,
    read_manifest,
    sha256,
)

FORMAT = 1
# meetme's packages: all of its code and data (the installed layout maps the design card's
# top-level folders into these)
PACKAGES = ("meetme", "meetme.generators", "meetme.validators", "meetme.templates")
# what meetme imports to lint and render, by module (found without being imported)
DEPENDENCIES = ("jinja2", "markupsafe", "pydantic", "pydantic_core", "yaml", "netaddr")
RECORD = "lint_record"  # the hash file's member holding it, on a line of its own
RECORD_LINE = f'"{RECORD}": '
MAX_INTENT_BYTES = 256 * 1024 * 1024  # beyond this the intent is linted, not digested


def intent_key(intent_dir: Path, shown_as: Path | None = None) -> str | None:
    """The digest of everything a lint of `intent_dir` depends on, None when one of those
    cannot be read in full (then there is no record to write or to read). `shown_as`: the
    folder its files are named after in findings, when not their own (`meetme diff` lints the
    base's intent in a temporary folder and names its files as the working tree's)."""
    plugins = sys.modules.get("meetme.generators.platforms")
    if plugins is not None and not plugins.only_built_in():
        return None  # a plug-in from elsewhere, or one changed in this process: not in the key
    try:
        today = current_date()
    except ValueError:  # a malformed $MEETME_TODAY: the lint itself says so
        return None
    files, code = _folder_digest(intent_dir), _code_digest()
    if files is None or code is None:
        return None
    parts = {
        "format": FORMAT,
        "python": sys.version,
        "code": code,
        "installed": _installed(),
        "today": today.isoformat(),
        "cwd": str(Path.cwd().resolve()),
        "intent": str(Path(shown_as or intent_dir).resolve()),
        "files": files,
    }
    return sha256(json.dumps(parts, sort_keys=True).encode("utf-8"))


def _folder_digest(folder: Path) -> str | None:
    """Every name under `folder` with its kind and content, never following a link."""
    digest = hashlib.sha256()
    total = 0
    try:
        for root, folders, files in os.walk(folder, onerror=_raise):
            folders.sort()
            relative = os.path.relpath(root, folder)
            digest.update(f"dir\0{relative}\0".encode("utf-8", "surrogateescape"))
            for name in sorted(files + [f for f in folders if os.path.islink(f"{root}/{f}")]):
                path = os.path.join(root, name)
                info = os.lstat(path)
                label = f"{relative}/{name}".encode("utf-8", "surrogateescape")
                if stat.S_ISLNK(info.st_mode):
                    # its text and where it resolves: a link through a link outside the
                    # folder reads another file when that one is re-pointed, text unchanged
                    target = os.readlink(path).encode("utf-8", "surrogateescape")
                    resolved = os.path.realpath(path).encode("utf-8", "surrogateescape")
                    digest.update(b"link\0" + label + b"\0" + target + b"\0" + resolved + b"\0")
                    continue
                if not stat.S_ISREG(info.st_mode):
                    return None
                total += info.st_size
                if total > MAX_INTENT_BYTES:
                    return None
                data = _read_regular(path)
                if data is None:
                    return None
                digest.update(b"file\0" + label + b"\0" + sha256(data).encode("ascii") + b"\0")
    except OSError:
        return None
    return digest.hexdigest()


def _raise(error: OSError) -> None:
    raise error  # a folder that cannot be listed: not all of the intent is known


def _read_regular(path: str) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return None
        return handle.read()


_CODE: list[str] = []


def _code_digest() -> str | None:
    """Every file of meetme's packages (sources, templates, data), by name and bytes; None
    when one cannot be read."""
    if not _CODE:
        digest = hashlib.sha256()
        try:
            for package in PACKAGES:
                spec = importlib.util.find_spec(package)
                folders = spec.submodule_search_locations if spec is not None else None
                for top in folders or ():
                    for root, below, files in os.walk(top, onerror=_raise):
                        below[:] = sorted(f for f in below if f != "__pycache__")
                        for name in sorted(f for f in files if not f.endswith(".pyc")):
                            path = os.path.join(root, name)
                            with open(path, "rb") as handle:
                                data = handle.read()
                            label = f"{package}/{os.path.relpath(path, top)}"
                            digest.update(label.encode("utf-8", "surrogateescape") + b"\0")
                            digest.update(data + b"\0")
        except OSError:
            return None
        _CODE.append(digest.hexdigest())
    return _CODE[0]


def _installed() -> list[str]:
    """The distributions installed where meetme's dependencies are (each one's metadata
    folder: name and version): an upgraded Jinja2, pydantic or PyYAML changes the key."""
    places: set[str] = set()
    for module in DEPENDENCIES:
        spec = importlib.util.find_spec(module)
        if spec is not None and spec.origin:
            places.add(os.path.dirname(os.path.dirname(spec.origin)))
    found: list[str] = []
    for place in sorted(places):
        try:
            names = os.listdir(place)
        except OSError:
            continue
        found += sorted(n for n in names if n.endswith((".dist-info", ".egg-info")))
    return found


@dataclass(frozen=True)
class Recorded:
    """What the last render wrote for an intent: its lint's findings, each device's main file,
    and (read back by `read_back`) every file's text, rendered/-relative."""

    findings: list[Finding]
    mains: dict[str, str]  # device -> its main file
    digests: dict[str, str]  # file -> sha256 of its bytes
    rest: str  # sha256 of the hash file's other lines, as that render wrote them
    files: dict[str, str] = field(default_factory=dict)


def record_json(
    key: str,
    findings: list[Finding],
    devices: Mapping[str, tuple[str, Mapping[str, str]]],
    rest: str,
) -> str:
    """The record as the hash file holds it, on a line of its own: the key, the findings in
    report order, each device's main file and file digests (device -> (main, {file:
    sha256})) and the digest of the file's other lines (`rest`), signed."""
    record: dict[str, Any] = {
        "key": key,
        "rest": rest,
        "findings": [_finding(f) for f in findings],
        "devices": {
            name: {"main": main, "files": dict(sorted(files.items()))}
            for name, (main, files) in sorted(devices.items())
        },
    }
    signing = signing_key()
    record["mac"] = mac(signing, RECORD, record) if signing is not None else ""
    return json.dumps(record, sort_keys=True)


def read_record(raw: object, key: str | None) -> Recorded | None:
    """A hash file's record (its RECORD member, parsed), when it is signed by this user and
    of the intent whose key is `key`; its files are not read."""
    signing = signing_key()
    if not isinstance(raw, dict) or key is None or signing is None:
        return None
    if not signed(signing, RECORD, raw) or raw.get("key") != key:
        return None
    try:
        mains: dict[str, str] = {}
        digests: dict[str, str] = {}
        for name, device in raw["devices"].items():
            mains[name] = str(device["main"])
            digests.update({str(f): str(d) for f, d in device["files"].items()})
        findings = [_read_finding(f) for f in raw["findings"]]
        return Recorded(findings, mains, digests, str(raw["rest"]))
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def hash_file_of(rendered: Path) -> tuple[bytes, dict[str, Any], set[str]] | None:
    """The rendered folder's hash file: its bytes, parsed, and the files its marker lists."""
    try:
        listed = read_manifest(rendered)
        if listed is None or HASHES not in listed:
            return None
        data = read_small(rendered / HASHES)
        parsed = json.loads(data.decode("utf-8")) if data is not None else None
    except (OSError, ValueError, RecursionError):
        return None
    return (data, parsed, listed) if data is not None and isinstance(parsed, dict) else None


def listed_text(folder: Path, listed: set[str], relative: str, expected: str) -> str | None:
    """The text of a file of `folder` that its marker lists (`listed`), when its bytes still
    have the digest `expected`; never a path outside the folder or through a link."""
    parts = PurePosixPath(relative).parts
    if relative not in listed or PurePosixPath(relative).is_absolute() or ".." in parts:
        return None
    try:
        data = read_small(folder / relative)
    except OSError:
        return None
    if data is None or sha256(data) != expected:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


RECORD_AT = 3  # the record's line in the hash file: after "{", "about" and "stamp"


def rest_digest(lines: list[str]) -> str | None:
    """The digest of a hash file's lines (split at each newline) but the record's; None when
    the record is not where the hash file keeps it."""
    if len(lines) <= RECORD_AT or not lines[RECORD_AT].startswith(RECORD_LINE):
        return None
    rest = lines[:RECORD_AT] + lines[RECORD_AT + 1 :]
    return sha256("\n".join(rest).encode("utf-8"))


def read_back(
    rendered: Path, intent_dir: Path, shown_as: Path | None = None, exactly: bool = False
) -> Recorded | None:
    """What the last render into `rendered` wrote for the intent in `intent_dir` (its files
    named as if it were in `shown_as`): the record with every file's text, each read back
    with the digest the record gives. `exactly`: and the folder holds nothing else, its
    marker and hash file as that render wrote them, so a render now would write nothing.
    None when any of it does not hold."""
    found = hash_file_of(rendered)
    if found is None:
        return None
    data, parsed, listed = found
    recorded = read_record(parsed.get(RECORD), intent_key(intent_dir, shown_as))
    if recorded is None:
        return None
    for relative, expected in recorded.digests.items():
        text = listed_text(rendered, listed, relative, expected)
        if text is None:
            return None
        recorded.files[relative] = text
    if exactly and not _holds_exactly(rendered, recorded, data):
        return None
    return recorded


def _holds_exactly(rendered: Path, recorded: Recorded, hashes: bytes) -> bool:
    """The folder holds the recorded files, its marker and the hash file as that render wrote
    them, and nothing else."""
    if rest_digest(hashes.decode("utf-8").split("\n")) != recorded.rest:
        return False  # the other lines are not as that render wrote them
    try:
        on_disk = {name for name, _ in folder_entries(rendered)}
        marker = read_small(rendered / MARKER)
    except OSError:
        return False
    expected = marker_text([*recorded.files, HASHES]).encode("utf-8")
    return on_disk == set(recorded.files) | OWNED and marker == expected


def recorded_findings(intent_dir: Path, rendered: Path) -> list[Finding] | None:
    """The findings `render` recorded in `rendered` for this very intent, if it did."""
    found = hash_file_of(rendered)
    recorded = read_record(found[1].get(RECORD), intent_key(intent_dir)) if found else None
    return recorded.findings if recorded is not None else None


def _finding(finding: Finding) -> list[Any]:
    waiver = finding.waived_by
    where = finding.location
    return [
        finding.rule,
        finding.severity,
        finding.message,
        [where.file, where.line, where.column],
        finding.path,
        None
        if waiver is None
        else [
            [waiver.location.file, waiver.location.line, waiver.location.column],
            waiver.owner,
            waiver.reason,
            waiver.expires.isoformat(),
            waiver.severity,
        ],
    ]


def _read_finding(raw: list[Any]) -> Finding:
    rule, severity, message, where, path, waiver = raw
    waived_by = None
    if waiver is not None:
        at, owner, reason, expires, was = waiver
        waived_by = WaivedBy(
            Location(*at), owner, reason, datetime.date.fromisoformat(expires), was
        )
    return Finding(rule, severity, message, Location(*where), path, waived_by)


KEY_FILE = "hash-key"


def signing_key() -> bytes | None:
    """This user's key for the hash file's signatures, made on first use; None when the user
    has no private meetme folder (then no hash file is ever trusted)."""
    folder = private_dir("keys")
    if folder is None:
        return None
    path = folder / KEY_FILE
    try:
        data = read_small(path)
        if data is None or len(data) != KEY_BYTES:
            _new_key(path, replace=data is not None)
            data = read_small(path)
    except OSError:
        return None
    return data if data is not None and len(data) == KEY_BYTES else None


KEY_BYTES = 32


def _new_key(path: Path, replace: bool) -> None:
    """A fresh key at `path`, whole or not at all: written to a file of its own first, then
    linked in where none is (or, `replace`, put over one that is no key: an empty file of a
    run killed mid-write by an older meetme, which no signature could have been made with).
    A concurrent first use finds either no key or a whole one."""
    import tempfile  # first use only: every other run reads the key

    fd, temporary = tempfile.mkstemp(prefix=".key.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(secrets.token_bytes(KEY_BYTES))
        if replace:
            os.replace(temporary, path)
        else:
            with contextlib.suppress(FileExistsError):  # another run made it first
                os.link(temporary, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


def mac(key: bytes, name: str, entry: Mapping[str, Any]) -> str:
    unsigned = {k: v for k, v in entry.items() if k != "mac"}
    message = json.dumps([name, unsigned], sort_keys=True).encode("utf-8")
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def signed(key: bytes, name: str, raw: Mapping[str, Any]) -> bool:
    found = raw.get("mac")
    return isinstance(found, str) and hmac.compare_digest(found, mac(key, name, raw))


def read_small(path: Path) -> bytes | None:
    """A regular file's bytes (never through a symbolic link), None if absent or too large."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except (FileNotFoundError, NotADirectoryError):
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > SNIFF_LIMIT:
            return None
        return handle.read()
