"""Where each platform's templates and files are, without Jinja2: the file a device's model
renders into, the folder its templates come from and the digest of a template's source.

The incremental render's content hashes (meetme/hashes.py) need only these to tell whether a
device's files still hold; a lint or render that finds every device unchanged then never
imports Jinja2 (about a twentieth of `meetme lint` on the example). generators/render.py
renders through the same folders, so a digest here is the digest of what Jinja2 reads.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import posixpath
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

from meetme.generators.model import DeviceModel
from meetme.generators.platforms import PLATFORMS, Platform

ABSENT = "absent"  # the digest of a template that is not there


class RenderError(Exception):
    """A template failed on a device model: a bug in meetme's templates, never in intent."""


def output_name(model: DeviceModel) -> str:
    """rendered/<site>/<device><suffix> of the device's main file, relative to the output
    folder."""
    return f"{model.site}/{model.hostname}{PLATFORMS[model.platform].file_suffix}"


def template_folder(plugin: Platform, templates: Path | None) -> str:
    """The plug-in's own templates (the installed package's by default), or
    `templates/<platform>` when a caller passes another templates folder (a test rendering a
    deliberately broken template)."""
    if templates is not None:
        return str(templates / plugin.name)
    if plugin.templates is not None:
        return str(plugin.templates)
    return os.path.join(_package_templates(), plugin.name)


@functools.cache
def _package_templates() -> str:
    """The installed package's templates folder: asked once per device and template, and
    importlib.resources takes ~60 us to answer."""
    return str(resources.files("meetme.templates"))


# What held during the current `settled` block (None: outside one): Jinja2's up-to-date
# checks (generators/render.py) and the (folder, name) keys of `_DIGESTS` checked against
# their file.
_SETTLED: set[object] | None = None


@contextlib.contextmanager
def settled() -> Iterator[None]:
    """Within the block, each template is checked against its file once: jinja2 asks the
    disk (a stat) each time a template is used, some 40 times per device, and a batch of
    devices renders with the templates as they were when it began."""
    global _SETTLED
    if _SETTLED is not None:  # an enclosing block holds
        yield
        return
    _SETTLED = set()
    try:
        yield
    finally:
        _SETTLED = None


def settled_checks() -> set[object] | None:
    """The checks that held in the current `settled` block; None outside one."""
    return _SETTLED


# (folder, name) -> (digest, the file's (mtime, size) when it was read): each template is
# hashed once while it is unchanged on disk, not once per device.
_DIGESTS: dict[tuple[str, str], tuple[str, tuple[int, int]]] = {}


def template_digest(platform: str, templates: Path | None, name: str) -> str:
    """sha256 of the template's source as Jinja2's file loader reads it (text mode, UTF-8, so
    line ends as Python reads them), or ABSENT."""
    folder = template_folder(PLATFORMS[platform], templates)
    key = (folder, name)
    found = _DIGESTS.get(key)
    if found is not None and _SETTLED is not None and key in _SETTLED:
        return found[0]
    path = _template_path(folder, name)
    try:
        if path is None:
            return ABSENT
        status = os.stat(path)
        state = (status.st_mtime_ns, status.st_size)
        if found is None or found[1] != state:
            with open(path, encoding="utf-8") as source:
                found = (hashlib.sha256(source.read().encode("utf-8")).hexdigest(), state)
            _DIGESTS[key] = found
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return ABSENT
    if _SETTLED is not None:
        _SETTLED.add(key)
    return found[0]


def _template_path(folder: str, name: str) -> str | None:
    """The file Jinja2's FileSystemLoader reads for `name` (its own rule: `/`-separated
    pieces, none of them `..` or holding a path separator), or None where it finds none."""
    pieces = []
    for piece in name.split("/"):
        if os.sep in piece or (os.path.altsep and os.path.altsep in piece) or piece == "..":
            return None
        if piece and piece != ".":
            pieces.append(piece)
    return posixpath.join(folder, *pieces)
