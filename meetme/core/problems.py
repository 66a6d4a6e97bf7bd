"""Where a problem is, and the problems that make intent unusable (exit 2)."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass

EXIT_OK = 0
EXIT_FINDINGS = 1  # lint found at least one error-severity finding, or check found drift
EXIT_UNUSABLE = 2  # intent could not be read, parsed or resolved
EXIT_INTERNAL = 3  # a bug in meetme, not in intent: a template that cannot render a model, any
# unexpected error (one masked line, no traceback)

# Errors quote a value by at most this many characters, escaped: enough to find it, too
# little to copy a file or a token out through a CI log.
SHOWN_CHARS = 24


@dataclass(frozen=True, order=True)
class Location:
    """A position in an intent file; line and column count from 1, as editors do."""

    file: str
    line: int
    column: int

    def __post_init__(self) -> None:
        if not self.file.isprintable():  # a file name with a line break is still one line
            object.__setattr__(self, "file", printable(self.file))

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Problem:
    """One reason the intent cannot be used: bad YAML, schema violation, dangling name."""

    location: Location
    message: str
    kind: str  # short machine-readable category, e.g. "duplicate-key", "unknown-key"

    def __post_init__(self) -> None:
        # whoever raised it, a message is one printable line: no value can start a new line
        # in a terminal or a CI log (a `::command` of a workflow runner)
        if not self.message.isprintable():
            object.__setattr__(self, "message", printable(self.message))

    def __str__(self) -> str:
        return f"{self.location}: error[{self.kind}]: {self.message}"


class IntentError(Exception):
    """Raised with every problem of a run, sorted by file and line."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = sorted(problems, key=lambda p: (p.location, p.message))
        super().__init__(f"{len(self.problems)} problem(s) in intent")


def printable(text: str) -> str:
    """Text with every non-printable character escaped: no newline, no terminal control,
    nothing a CI log reads as a new command."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def clip(text: str, limit: int = SHOWN_CHARS) -> str:
    """At most `limit` characters of text, escaped, with '…' when cut."""
    cut = len(text) > limit
    return printable(text[:limit]) + ("…" if cut else "")


def shown(value: object, limit: int = SHOWN_CHARS) -> str:
    """A value as an error message may quote it: a short escaped prefix, never all of it."""
    if isinstance(value, str):
        return f"'{clip(value, limit)}'"
    if value is None or isinstance(value, bool | int | float):
        try:
            return clip(str(value), limit)
        except ValueError:  # an integer too long to print
            return "a very long number"
    return f"a {type(value).__name__}"


# A message names at most this many things before it says how many more there are.
LISTED = 8


# How alike a name must be to a known one for a did-you-mean (difflib's ratio): a site's
# names share their site prefix, so at difflib's own 0.6 `ams3-nope` was offered `ams3-sp22`
# and `dh1-r99` `dh1-r2`; one character more or less than a name of four or more stays above
# it, and one character changed or two swapped is offered at any length (`mel9`, `asu1`)
CLOSE_NAME = 0.8


def closest(name: str, known: Sequence[str]) -> str | None:
    """The known name `name` was most likely meant to be: the same in another letter case,
    else one letter changed or two neighbours swapped (`mel9`, `asu1`), else the closest
    spelling close enough to be a typo; None when none is."""
    folded = name.casefold()
    same = [k for k in known if k.casefold() == folded]
    slips = [k for k in known if _one_slip(k.casefold(), folded)]
    # of equals the last in name order, as difflib breaks its ties
    close = (
        same
        or sorted(slips)[-1:]
        or difflib.get_close_matches(name, list(known), n=1, cutoff=CLOSE_NAME)
    )
    return close[0] if close else None


def _one_slip(known: str, given: str) -> bool:
    """One key hit wrong: one letter changed, or two neighbouring letters swapped."""
    if len(known) != len(given):
        return False
    off = [i for i, (a, b) in enumerate(zip(known, given, strict=True)) if a != b]
    if len(off) == 1:
        return True
    first, *rest = off or [0]
    return (
        rest == [first + 1]
        and known[first] == given[first + 1]
        and known[first + 1] == given[first]
    )


def listed(names: Sequence[str], most: int = LISTED) -> str:
    """The first `most` names, in the order given, and how many more: a 1,000-device site's
    message must not name every device, nor read as if the few it names were all."""
    more = len(names) - most
    return ", ".join(names[:most]) + (f" and {more} more" if more > 0 else "")
