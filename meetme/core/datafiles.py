"""meetme's own data files (validators/data/*.yaml), read with libyaml where PyYAML has it.

These files are meetme's, not the user's: no positions or limits are needed (the intent's
reader, meetme/intent/yaml_source.py, does that), only their plain data. libyaml's safe
loader builds the same data ~20 times faster than PyYAML's pure-Python one: the hardware
catalogue and the provider facts took ~30 ms of every command that loads the rules.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

import yaml

_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_data(name: str) -> Any:
    """The plain data of validators/data/`name`."""
    text = resources.files("meetme.validators").joinpath("data", name).read_text()
    return yaml.load(text, Loader=_LOADER)  # a safe loader: libyaml's or PyYAML's
