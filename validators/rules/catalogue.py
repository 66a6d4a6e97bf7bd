"""Importing this module registers every rule with the engine."""

from . import addr, clouds, edge, evpn, hardware, phy  # noqa: F401
