"""Every design-standard rule module; importing this module registers their rules with the
engine (the pipeline does, so the engine itself depends on no rule)."""

from meetme.validators.rules import addr, cabling, clouds, edge, evpn, hardware, mgmt, phy  # noqa: F401
