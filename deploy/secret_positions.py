"""Where a rendered config may carry a `<<secret:NAME>>` placeholder: the push-side fence.

A push replaces each placeholder of the rendered file with the secret's value. A placeholder
anywhere else than where the templates print a secret (a description, an interface name, any
free text of the intent) would send the value to the device in clear, where every reader of
`show running-config` sees it, while the journal shows only the placeholder. So every
placeholder of a rendered file must be the whole value of one of the line shapes below, and
the run is refused, before any connection, when one is not.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from meetme.core.secret_refs import NAME_PATTERN, PLACEHOLDER_RE


@dataclass(frozen=True)
class SecretLine:
    """One line shape a template prints a secret in."""

    what: str  # for messages
    line: re.Pattern[str]  # the whole line, the placeholder as its only variable value
    # the nearest less indented line above, where the line alone does not say what it belongs
    # to (`password 0 X` is a neighbor's key only inside a `neighbor` block)
    parent: re.Pattern[str] | None = None
    # the form the value must have, where the device takes the string as it is (a crypt hash):
    # (its name for messages, the pattern); None: any value
    value_form: tuple[str, re.Pattern[str]] | None = None


_SECRET = rf"<<secret:{NAME_PATTERN}>>"
_ADDRESS = r"[0-9A-Fa-f.:]+"  # a neighbor's IPv4 or IPv6 address
_WORD = r"[A-Za-z0-9._-]+"  # a user or role name


def _shape(
    what: str,
    line: str,
    parent: str | None = None,
    form: tuple[str, re.Pattern[str]] | None = None,
) -> SecretLine:
    return SecretLine(what, re.compile(line), None if parent is None else re.compile(parent), form)


# crypt(3) hashes as `openssl passwd -6` / `-5` print them: $id$[rounds=N$]salt$hash, a salt of
# up to 16 and a hash of 86 (SHA-512) or 43 (SHA-256) characters of [./0-9A-Za-z] (Drepper,
# "Unix crypt using SHA-256 and SHA-512"). A device stores the string as given: a password
# exported where its hash belongs, or the other algorithm's hash, is an account nobody can
# log in to, found only once the push has committed.
_CRYPT = r"(?:rounds=[0-9]{1,9}\$)?[./0-9A-Za-z]{1,16}\$[./0-9A-Za-z]{%d}"
SHA512_CRYPT = (
    "a SHA-512-crypt hash ($6$..., `openssl passwd -6`)",
    re.compile(r"\$6\$" + _CRYPT % 86),
)
SHA256_CRYPT = (
    "a SHA-256-crypt hash ($5$..., `openssl passwd -5`)",
    re.compile(r"\$5\$" + _CRYPT % 43),
)


# Every line that prints a secret in templates/<platform>/*.j2 (grep for `password` and
# `password_hash`); a new template line printing a secret needs its shape here, or pushes of
# it are refused.
SECRET_LINES: dict[str, tuple[SecretLine, ...]] = {
    "arista_eos": (
        # bgp.j2 session(): the external session's MD5 key
        _shape("a BGP neighbor's password", rf" *neighbor {_ADDRESS} password 0 {_SECRET}"),
        # management.j2: a local user's SHA-512-crypt hash
        _shape(
            "a local user's secret",
            rf"username {_WORD}(?: privilege \d+)? role {_WORD}(?: {_WORD})* "
            rf"secret sha512 {_SECRET}",
            form=SHA512_CRYPT,
        ),
    ),
    "cisco_iosxr": (
        # bgp.j2 session(): `password clear KEY` in neighbor mode
        _shape(
            "a BGP neighbor's password",
            rf" +password clear {_SECRET}",
            rf" +neighbor {_ADDRESS}",
        ),
        # management.j2: ` secret 10 HASH` under `username NAME`
        _shape(
            "a local user's secret",
            rf" secret 10 {_SECRET}",
            rf"username {_WORD}",
            form=SHA512_CRYPT,
        ),
    ),
    "cisco_nxos": (
        # bgp.j2: `password 0 KEY` in neighbor mode
        _shape("a BGP neighbor's password", rf" +password 0 {_SECRET}", rf" +neighbor {_ADDRESS}"),
        # management.j2: a local user's hash
        _shape(
            "a local user's password",
            rf"username {_WORD} password 5 {_SECRET} role {_WORD}(?: {_WORD})*",
            form=SHA256_CRYPT,
        ),
    ),
    "nvidia_nvue": (
        # bgp.j2: `password: 'KEY'` under the neighbor's quoted address
        _shape("a BGP neighbor's password", rf" +password: '{_SECRET}'", rf" +'{_ADDRESS}':"),
        # management_system.j2: `hashed-password: 'HASH'` under the user's quoted name
        _shape(
            "a local user's hashed-password",
            rf" +hashed-password: '{_SECRET}'",
            rf" +'{_WORD}':",
            form=SHA512_CRYPT,
        ),
    ),
}


def _single_quoted(value: str) -> str:
    """A value inside a YAML single-quoted scalar: its only escape is a doubled `'`."""
    return value.replace("'", "''")


# How a value is written where its platform's secret lines hold it (SECRET_LINES): every NVUE
# secret stands between single quotes, so a `'` in a password would end the scalar there and
# the rest would become YAML of its own. The CLI platforms' lines take the value as it is.
VALUE_ESCAPES: dict[str, Callable[[str], str]] = {"nvidia_nvue": _single_quoted}


@dataclass(frozen=True)
class Misplaced:
    """A placeholder outside every secret position: 1-based line and column, and its name."""

    line: int
    column: int
    name: str


def misplaced_placeholders(text: str, platform: str) -> list[Misplaced]:
    """Every placeholder of a rendered file that is not the value of a secret line shape of its
    platform (all of them for a platform without shapes)."""
    shapes = SECRET_LINES.get(platform, ())
    # Lines end at \n only, as on the device: str.splitlines would also cut at \r, \x1c or
    # \u2028, and so could pass a placeholder inside a description as a line of its own.
    lines = text.split("\n")
    found: list[Misplaced] = []
    for index, line in enumerate(lines):
        matches = list(PLACEHOLDER_RE.finditer(line))
        if not matches or any(_fits(shape, lines, index) for shape in shapes):
            continue
        found += [Misplaced(index + 1, m.start() + 1, m.group(1)) for m in matches]
    return found


HIDDEN = "<<hidden>>"
# A value where a device's own text (its running config, a diff of it) holds a secret: after
# `password`, `secret`, `hashed-password` or `key` and the type a platform writes before it
# (EOS `password 7`, `secret sha512`; IOS-XR `password encrypted`, `secret 10`; NX-OS
# `password 5`; NVUE `password:`), up to the end of the line or NX-OS's ` role NAME`.
_DEVICE_SECRET = re.compile(
    r"(?P<head>(?<![\w-])(?:password|secret|hashed-password|key)"
    r"(?:[ \t]+(?:[0-9]|10|clear|encrypted|sha512))?(?::[ \t]*|[ \t]+))"
    r"(?P<value>\S(?:.*?\S)?)(?P<tail>[ \t]+role[ \t]+[\w-]+(?:[ \t]+[\w-]+)*)?[ \t]*$"
)
_PLACEHOLDER_VALUE = re.compile(rf"(['\"]?){_SECRET}\1")


def hide_values(text: str) -> str:
    """The text (a device's diff, already masked) with every value at a secret's place shown
    as HIDDEN, unless it is a placeholder already: a value the run's secrets do not hold
    (the key a device runs before a rotation, one written in another spelling or type 7)
    would otherwise be printed and journaled in clear."""
    return "\n".join(_hidden(line) for line in text.split("\n"))


def _hidden(line: str) -> str:
    found = _DEVICE_SECRET.search(line)
    if found is None or _PLACEHOLDER_VALUE.fullmatch(found.group("value")):
        return line
    return line[: found.start("value")] + HIDDEN + (found.group("tail") or "")


def describe_positions(platform: str) -> str:
    """'a BGP neighbor's password or a local user's secret', for messages."""
    names = [shape.what for shape in SECRET_LINES.get(platform, ())]
    return " or ".join(names) if names else "none on this platform"


def value_forms(text: str, platform: str) -> dict[str, tuple[str, re.Pattern[str]]]:
    """Secret name -> the form its value must have, for every placeholder of a rendered file
    standing in a line shape that takes one form only (a local user's hash)."""
    shapes = [s for s in SECRET_LINES.get(platform, ()) if s.value_form is not None]
    lines = text.split("\n")
    found: dict[str, tuple[str, re.Pattern[str]]] = {}
    for index, line in enumerate(lines):
        for match in PLACEHOLDER_RE.finditer(line):
            for shape in shapes:
                if shape.value_form is not None and _fits(shape, lines, index):
                    found.setdefault(match.group(1), shape.value_form)
    return found


def _fits(shape: SecretLine, lines: list[str], index: int) -> bool:
    if not shape.line.fullmatch(lines[index]):
        return False
    if shape.parent is None:
        return True
    parent = _parent_line(lines, index)
    return parent is not None and shape.parent.fullmatch(parent) is not None


def _parent_line(lines: list[str], index: int) -> str | None:
    """The nearest non-blank line above `index` that is indented less."""
    depth = _indent(lines[index])
    for above in range(index - 1, -1, -1):
        if lines[above].strip() and _indent(lines[above]) < depth:
            return lines[above]
    return None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))
