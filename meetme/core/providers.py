"""Provider facts and limits, read from the versioned data file validators/data/providers.yaml."""

from __future__ import annotations

from functools import cache
from typing import Any

from meetme.core.datafiles import read_data


@cache
def providers() -> dict[str, Any]:
    data: dict[str, Any] = read_data("providers.yaml")
    return data
