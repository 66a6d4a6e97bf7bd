"""Secrets by reference: intent names a secret, rendered files carry a marked placeholder.

Intent writes `secret:NAME`; templates print `placeholder(NAME)`; only a push resolves the
placeholder, in memory, from the environment or a secrets file that never enters git.
"""

from __future__ import annotations

import re

REFERENCE_PREFIX = "secret:"
# A secret's name, as long as an intent name may be (a DNS label's 63 characters): it is also
# spelt into an environment variable (MEETME_SECRET_<NAME>) and a secrets file's key.
MAX_NAME_CHARS = 63
NAME_PATTERN = rf"[A-Za-z0-9][A-Za-z0-9._-]{{0,{MAX_NAME_CHARS - 1}}}"
REFERENCE_RE = re.compile(rf"^secret:({NAME_PATTERN})$")
PLACEHOLDER_RE = re.compile(rf"<<secret:({NAME_PATTERN})>>")
# A name's characters, whatever its length: a name of these alone is refused only as too long.
_NAME_CHARACTERS = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
# The messages never echo the text: it may be the key itself, pasted by mistake.
NOT_A_REFERENCE = (
    "a key must be a secret reference, secret:NAME, never the key itself; keep the "
    "value in the environment or a secrets file outside git"
)
WHAT_A_NAME_IS = (
    f"a secret's name is 1 to {MAX_NAME_CHARS} letters, digits, '.', '_' or '-', beginning "
    "with a letter or digit"
)
NAMES_NO_SECRET = (
    "a key must be a secret reference, secret:NAME, and this one names no secret: write the "
    f"secret's name after the colon; {WHAT_A_NAME_IS}"
)
MALFORMED_NAME = (
    "a key must be a secret reference, secret:NAME, and this one's name holds a character a "
    f"name may not, or begins with one; {WHAT_A_NAME_IS}"
)


def placeholder(name: str) -> str:
    """The marked text a rendered file carries instead of the secret's value."""
    return f"<<secret:{name}>>"


def reference_problem(reference: str) -> str | None:
    """What is wrong with a secret reference, None if nothing is: a message that never
    quotes the text (a key pasted in place of a reference must not reach a CI log)."""
    if REFERENCE_RE.fullmatch(reference) is not None:  # fullmatch: `$` would take a "\n"
        return None
    if not reference.startswith(REFERENCE_PREFIX):
        return NOT_A_REFERENCE
    name = reference.removeprefix(REFERENCE_PREFIX)
    if not name:
        return NAMES_NO_SECRET
    if _NAME_CHARACTERS.fullmatch(name) is None:
        return MALFORMED_NAME
    return (
        f"a key must be a secret reference, secret:NAME, and this one's name is {len(name)} "
        f"characters long, longer than the limit of {MAX_NAME_CHARS}; {WHAT_A_NAME_IS}"
    )


def reference_name(reference: str) -> str:
    """'secret:aws-dx-aus1' -> 'aws-dx-aus1'; ValueError, without the text, for anything else."""
    match = REFERENCE_RE.match(reference)
    if match is None:
        raise ValueError(reference_problem(reference) or NOT_A_REFERENCE)
    return match.group(1)
