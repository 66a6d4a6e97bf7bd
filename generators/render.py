"""Render a device model through its platform's Jinja2 templates. A pure function."""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path

import jinja2

from .model import DeviceModel
from .platforms import PLATFORMS

ENTRY_TEMPLATE = "device.j2"


@cache
def environment(platform: str, templates: Path | None = None) -> jinja2.Environment:
    """The platform's templates from the installed package, or from `templates/<platform>`
    when a caller passes another templates folder (a test rendering a deliberately broken
    template)."""
    folder = (
        templates / platform
        if templates is not None
        else resources.files("meetme.templates").joinpath(platform)
    )
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(folder)),
        undefined=jinja2.StrictUndefined,  # a missing model field is a bug, never a blank
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,  # device configs, not HTML
    )


class RenderError(Exception):
    """A template failed on a device model: a bug in meetme's templates, never in intent."""


def render_device(model: DeviceModel, templates: Path | None = None) -> str:
    template = environment(model.platform, templates).get_template(ENTRY_TEMPLATE)
    try:
        text = template.render(device=model, platform=PLATFORMS[model.platform])
    except jinja2.TemplateError as exc:
        where = _template_line(exc)
        raise RenderError(f"{model.hostname} ({model.platform}){where}: {exc}") from None
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


def output_name(model: DeviceModel) -> str:
    """rendered/<site>/<device><suffix>, relative to the output folder."""
    return f"{model.site}/{model.hostname}{PLATFORMS[model.platform].file_suffix}"


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
