"""Importing this module registers every rule with the engine."""

from . import addr, phy  # noqa: F401
