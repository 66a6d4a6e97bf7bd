"""Every design-standard rule module; importing this module registers their rules with the
engine (the pipeline does, so the engine itself depends on no rule)."""

from meetme.validators.rules import (  # noqa: F401
    addr,
    cabling,
    clouds,
    dci,
    edge,
    flow,
    handoff,
    hardware,
    limits,
    management,
    multihoming,
    overlay,
    phy,
    platform,
    srv6,
    topology,
)
