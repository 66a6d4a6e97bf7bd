"""Platforms are plug-ins: one module each (typed facts, capabilities, filters, files, gaps)
plus a template folder. `PLATFORMS` maps the intent's `platform:` value to its plug-in;
`register` adds one from outside (a test's toy platform, a site's own plug-in).

How to add a platform: docs/architecture.md ("Add a platform").
"""

from __future__ import annotations

from meetme.generators.platforms import arista_eos, cisco_iosxr, cisco_nxos, nvidia_nvue
from meetme.generators.platforms.base import (
    Capabilities,
    Gap,
    GapCheck,
    IntentPath,
    LocalUsers,
    OutputFile,
    Platform,
    PortForms,
    UserRole,
)

PlatformInfo = Platform  # the name the builders import

PLATFORMS: dict[str, Platform] = {}


def register(platform: Platform) -> Platform:
    """Make `platform` the plug-in for its name; a second plug-in of one name is refused."""
    known = PLATFORMS.get(platform.name)
    if known is not None and known is not platform:
        raise ValueError(f"platform {platform.name} is registered twice")
    PLATFORMS[platform.name] = platform
    return platform


def unregister(name: str) -> None:
    """Forget a plug-in (a test's toy platform, once the test is done)."""
    PLATFORMS.pop(name, None)


for _module in (arista_eos, cisco_iosxr, cisco_nxos, nvidia_nvue):
    register(_module.PLATFORM)
BUILT_IN = dict(PLATFORMS)


def only_built_in() -> bool:
    """Whether the plug-ins are exactly meetme's own, unchanged: what the lint record
    (meetme/record.py) takes for granted, its key covering meetme's files and nothing else."""
    return PLATFORMS.keys() == BUILT_IN.keys() and all(
        PLATFORMS[name] is plugin for name, plugin in BUILT_IN.items()
    )


__all__ = [
    "BUILT_IN",
    "PLATFORMS",
    "Capabilities",
    "Gap",
    "GapCheck",
    "IntentPath",
    "LocalUsers",
    "OutputFile",
    "Platform",
    "PlatformInfo",
    "PortForms",
    "UserRole",
    "only_built_in",
    "register",
    "unregister",
]
