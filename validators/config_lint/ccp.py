"""Import ciscoconfparse2 without its import-time instrumentation.

ciscoconfparse2 decorates its classes with typeguard's `@typechecked`, which rewrites and
recompiles every decorated function when the module is imported: about 0.75 s of the 1.1 s the
import takes, for run-time type checks of arguments meetme always passes correctly. The config
lint runs inside every `meetme lint`, so the library is imported with the decorator standing
in as the identity; nothing else about it changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _identity(target: Any = None, **_options: Any) -> Any:
    if target is None:  # used as @typechecked(...)
        return lambda function: function
    return target


def _load() -> Callable[..., Any]:
    import typeguard

    original = typeguard.typechecked
    typeguard.typechecked = _identity
    try:
        from ciscoconfparse2 import CiscoConfParse
    finally:
        typeguard.typechecked = original
    return CiscoConfParse  # type: ignore[no-any-return]


CiscoConfParse = _load()
