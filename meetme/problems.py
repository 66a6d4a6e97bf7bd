"""Where a problem is, and the problems that make intent unusable (exit 2)."""

from __future__ import annotations

from dataclasses import dataclass

EXIT_OK = 0
EXIT_FINDINGS = 1  # lint found at least one error-severity finding, or check found drift
EXIT_UNUSABLE = 2  # intent could not be read, parsed or resolved
EXIT_INTERNAL = 3  # a template could not render a device model: a bug in meetme, not in intent


@dataclass(frozen=True, order=True)
class Location:
    """A position in an intent file; line and column count from 1, as editors do."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Problem:
    """One reason the intent cannot be used: bad YAML, schema violation, dangling name."""

    location: Location
    message: str
    kind: str  # short machine-readable category, e.g. "duplicate-key", "unknown-key"

    def __str__(self) -> str:
        return f"{self.location}: error[{self.kind}]: {self.message}"


class IntentError(Exception):
    """Raised with every problem of a run, sorted by file and line."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = sorted(problems, key=lambda p: (p.location, p.message))
        super().__init__(f"{len(self.problems)} problem(s) in intent")
