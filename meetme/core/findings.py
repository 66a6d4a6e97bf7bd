"""What the design-standard lint reports: a finding, the waiver that covers one, and the day
waivers are judged on.

Kept apart from the rule engine (validators/engine.py) so that reading findings back
(meetme/record.py: `meetme lint` on an intent unchanged since the last render) and printing
them (meetme/report.py) need none of the rules, the schema or the fabric.
"""

from __future__ import annotations

import datetime
import os
from dataclasses import dataclass
from typing import Literal

from meetme.core.problems import Location

Severity = Literal["error", "warning", "info"]
# what a finding is reported as: a rule's severity (maybe overridden), or waived
ReportedSeverity = Literal["error", "warning", "info", "waived"]
SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2, "waived": 3}
TODAY_VARIABLE = "MEETME_TODAY"  # YYYY-MM-DD: the day waivers are judged against


@dataclass(frozen=True)
class WaivedBy:
    """The waiver that covers a finding, and what the finding would be without it."""

    location: Location
    owner: str
    reason: str
    expires: datetime.date
    severity: Severity

    def as_dict(self) -> dict[str, object]:
        return {
            "file": self.location.file,
            "line": self.location.line,
            "owner": self.owner,
            "reason": self.reason,
            "expires": self.expires.isoformat(),
            "severity": self.severity,
        }

    def __str__(self) -> str:
        return (
            f"waived by {self.location.file}:{self.location.line} "
            f"(owner {self.owner}, until {self.expires.isoformat()}): {self.reason}"
        )


@dataclass(frozen=True)
class Finding:
    rule: str
    severity: ReportedSeverity
    message: str
    location: Location
    path: str  # dotted object path, e.g. sites.aus1.devices.aus1-br2.room
    waived_by: WaivedBy | None = None

    def as_dict(self) -> dict[str, object]:
        found: dict[str, object] = {
            "rule": self.rule,
            "severity": self.severity,
            "message": self.message,
            "file": self.location.file,
            "line": self.location.line,
            "column": self.location.column,
            "path": self.path,
        }
        if self.waived_by is not None:
            found["waiver"] = self.waived_by.as_dict()
        return found

    def __str__(self) -> str:
        return f"{self.location}: {self.severity}[{self.rule}]: {self.message}"


class BadToday(ValueError):
    """$MEETME_TODAY is set to something that is no day: the user's input (exit 2)."""


def current_date() -> datetime.date:
    """$MEETME_TODAY when set (tests, or replaying an old CI run), else today in UTC: the
    machine's own zone would let a UTC runner and a Sydney laptop judge one waiver apart for
    half of every day."""
    value = os.environ.get(TODAY_VARIABLE, "").strip()
    if not value:
        return datetime.datetime.now(datetime.UTC).date()
    try:
        return datetime.date.fromisoformat(value)
    except ValueError:
        raise BadToday(
            f"{TODAY_VARIABLE}={value!r} is not a date (YYYY-MM-DD); set a day such as "
            f"2026-06-30, or unset it for today"
        ) from None
