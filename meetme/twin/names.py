"""Deterministic Linux names for the twin: interfaces (at most 15 bytes, IFNAMSIZ - 1) and
network namespaces (one per device and per emulated party, under a fixed prefix)."""

from __future__ import annotations

import hashlib
import os
import re

from meetme.core.problems import shown

IFNAMSIZ = 15  # the kernel's limit on an interface name, without its terminating NUL

PREFIX_VARIABLE = "MEETME_TWIN_PREFIX"
DEFAULT_PREFIX = "mm-"
_PREFIX_FORM = re.compile(r"[a-z0-9]{2,6}-")


def _prefix() -> str:
    """Every namespace the twin creates starts with this: `mm-`, or MEETME_TWIN_PREFIX (2 to
    6 of [a-z0-9] and a `-`), so two twins of one site can run side by side on one machine
    (a test run beside a user's twin). Any other value gives `mm-` here; the twin's commands
    refuse it first (`prefix_problem`), so it never points them at the default twin."""
    given = os.environ.get(PREFIX_VARIABLE, DEFAULT_PREFIX)
    return given if _PREFIX_FORM.fullmatch(given) else DEFAULT_PREFIX


def prefix_problem() -> str | None:
    """Why MEETME_TWIN_PREFIX cannot be used, in one line, or None when it can (unset or
    empty: the default `mm-`). A mistyped prefix (`mt` for `mt-`) must not quietly become
    `mm-`: `up` and `down` would then work on the user's own twin, the one a second prefix
    is there to leave alone."""
    given = os.environ.get(PREFIX_VARIABLE, "")
    if not given or _PREFIX_FORM.fullmatch(given):
        return None
    mended = given.lower().rstrip("-") + "-"
    example = mended if _PREFIX_FORM.fullmatch(mended) else "mt-"
    return (
        f"meetme twin: {PREFIX_VARIABLE}={shown(given)} is not a namespace prefix: it needs 2 "
        f"to 6 of a-z and 0-9, then '-' (such as '{example}'); set one, or unset it for the "
        f"default '{DEFAULT_PREFIX}'; nothing was done"
    )


PREFIX = _prefix()

# Short forms of the interface families meetme's platforms name (their own spellings).
_FAMILY = {
    "FourHundredGigE": "fh",
    "TwoHundredGigE": "th",
    "HundredGigE": "hu",
    "FiftyGigE": "fi",
    "FortyGigE": "fo",
    "TwentyFiveGigE": "tf",
    "TenGigE": "te",
    "Ethernet": "e",
    "Port-Channel": "po",
    "port-channel": "po",
    "Loopback": "lo",
    "loopback": "lo",
}
_SAFE = re.compile(r"[a-z0-9][a-z0-9.-]*")


def _digest(text: str, width: int) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:width]


def linux_name(name: str) -> str:
    """A platform's interface name as a Linux one: the family shortened, `/` as `-`, the
    sub-interface tag kept (`HundredGigE0/0/0/8.3101` -> `hu0-0-0-8.3101`); a name that
    still does not fit, or holds another character, is `i` + a digest of it."""
    match = re.fullmatch(r"([A-Za-z-]*?)([0-9].*)?", name)
    family, rest = (match.group(1), match.group(2) or "") if match else (name, "")
    short = _FAMILY.get(family, family.lower()) + rest.replace("/", "-")
    if len(short) <= IFNAMSIZ and _SAFE.fullmatch(short) and short != "lo":
        return short
    return "i" + _digest(name, IFNAMSIZ - 1)


def namespace(site: str, node: str) -> str:
    """The namespace of a device or party: `mm-<site>-<node>`, `/` as `-`; a long name keeps
    its head and ends in a digest, so it stays unique and readable."""
    name = PREFIX + re.sub(r"[^A-Za-z0-9_.-]", "-", f"{site}-{node}")
    return name if len(name) <= 48 else name[:39] + "-" + _digest(name, 8)
