"""Secrets by reference: intent names a secret, rendered files carry a marked placeholder.

Intent writes `secret:NAME`; templates print `placeholder(NAME)`; only a push resolves the
placeholder, in memory, from the environment or a secrets file that never enters git.
"""

from __future__ import annotations

import re

REFERENCE_PREFIX = "secret:"
NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}"
REFERENCE_RE = re.compile(rf"^secret:({NAME_PATTERN})$")
PLACEHOLDER_RE = re.compile(rf"<<secret:({NAME_PATTERN})>>")
# never echoes the text: it may be the key itself, pasted by mistake
NOT_A_REFERENCE = (
    "a key must be a secret reference, secret:NAME, never the key itself; keep the "
    "value in the environment or a secrets file outside git"
)


def placeholder(name: str) -> str:
    """The marked text a rendered file carries instead of the secret's value."""
    return f"<<secret:{name}>>"


def reference_name(reference: str) -> str:
    """'secret:aws-dx-aus1' -> 'aws-dx-aus1'; ValueError, without the text, for anything else."""
    match = REFERENCE_RE.match(reference)
    if match is None:
        raise ValueError(NOT_A_REFERENCE)
    return match.group(1)
