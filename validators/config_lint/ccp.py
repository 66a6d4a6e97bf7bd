"""Import ciscoconfparse2 without its import-time instrumentation.

ciscoconfparse2 decorates its classes with typeguard's `@typechecked`, which rewrites and
recompiles every decorated function when the module is imported (about 0.75 s of the 1.1 s the
import takes), and most of its functions with loguru's `@logger.catch(reraise=True)`, which
wraps every call (2.4 M calls, over half the parse time of a border's config). Both only check
or log: meetme always passes arguments of the right types, and an exception still propagates.
So the library is imported with both decorators standing in as the identity, and its log
messages are switched off once here (the parser's own `loguru=False` reconfigures loguru on
every call, ~10 ms each); nothing else about it changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _identity(target: Any = None, **_options: Any) -> Any:
    if target is None:  # used as @typechecked(...)
        return lambda function: function
    return target


def _no_catch(_logger: Any, *args: Any, **_options: Any) -> Any:
    """`@logger.catch`, `@logger.catch(...)` or `@logger.catch(SomeError, ...)`."""
    if args and callable(args[0]) and not isinstance(args[0], type):
        return args[0]
    return lambda function: function


def _load() -> Callable[..., Any]:
    import typeguard
    from loguru import logger

    original = typeguard.typechecked
    logger_class = type(logger)
    catch = logger_class.catch
    typeguard.typechecked = _identity
    logger_class.catch = _no_catch  # type: ignore[method-assign, assignment]
    try:
        from ciscoconfparse2 import CiscoConfParse
    finally:
        typeguard.typechecked = original
        logger_class.catch = catch  # type: ignore[method-assign]
    logger.disable("ciscoconfparse2")
    return CiscoConfParse  # type: ignore[no-any-return]


CiscoConfParse = _load()
