"""Provider facts and limits, read from the versioned data file validators/data/providers.yaml."""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

import yaml


@cache
def providers() -> dict[str, Any]:
    text = resources.files("meetme.validators").joinpath("data/providers.yaml").read_text()
    data: dict[str, Any] = yaml.safe_load(text)
    return data
