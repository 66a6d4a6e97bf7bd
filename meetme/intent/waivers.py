"""Waivers and the standards profile: how a team records an accepted exception to a rule.

A waiver names a rule, the object it is about (the dotted path a finding carries, or a prefix
of it), why, who owns it and when it expires. Findings it matches are reported as waived; an
expired waiver, or one that matches nothing, is itself an error (rules WAIVER-001/002), so
exceptions cannot silently outlive their reason. The engine applies both (rules/engine.py).
"""

from __future__ import annotations

import datetime
import re
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator

from meetme.intent.schema_base import Node
from meetme.intent.types import FreeText, ObjectPath, bad_value

RULE_ID_PATTERN = r"^[A-Z][A-Z0-9]*-[0-9]{3}$"
_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
RuleSeverity = Literal["error", "warning", "info"]
RuleId = Annotated[str, Field(pattern=RULE_ID_PATTERN)]


class Waiver(Node):
    rule: RuleId = Field(description="Rule id, e.g. ADDR-003.")
    object: ObjectPath = Field(
        description="Dotted path of the finding's object, or a prefix of it, e.g. "
        "sites.aus1.devices.aus1-br2 (`meetme lint --format json` prints each finding's path).",
    )
    reason: FreeText = Field(description="Why the exception is accepted (one line).")
    owner: FreeText = Field(description="Who answers for it (person or team).")
    expires: datetime.date = Field(
        description="Last day the waiver holds (YYYY-MM-DD); after it, lint fails.",
        strict=False,  # "2026-06-30" quoted is the same day as the unquoted YAML date
    )

    @field_validator("expires", mode="before")
    @classmethod
    def _a_day_as_written(cls, value: Any) -> Any:
        # lax parsing would take 4102444800 or "20991231" as a Unix time: a day is
        # written as a day, so a waiver never lasts until a date nobody wrote
        if isinstance(value, datetime.date) and not isinstance(value, datetime.datetime):
            return value
        if isinstance(value, str) and _DAY.fullmatch(value):
            try:
                datetime.date.fromisoformat(value)
            except ValueError as error:  # 2027-02-30: the form of a day, but no day
                raise bad_value(
                    f"{value} is no day of the calendar ({error}); write the last day as "
                    "YYYY-MM-DD, e.g. 2026-06-30"
                ) from None
            return value
        raise bad_value("write the last day as YYYY-MM-DD, e.g. 2026-06-30")


class StandardsProfile(Node):
    severity: dict[RuleId, RuleSeverity] = Field(
        default_factory=dict,
        description="Per-rule severity overrides, e.g. {ADDR-003: error}.",
    )
