"""Importing this module registers every rule with the engine."""

from . import addr, cabling, clouds, edge, evpn, hardware, mgmt, phy  # noqa: F401
