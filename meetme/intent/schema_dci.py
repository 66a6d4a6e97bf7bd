"""The DCI feature in intent: circuits between two sites, their economics and diversity, the
groups of circuits declared diverse, and the capacity each site pair needs.

It sits at the top of the intent, beside `organisation` and `sites`, because a circuit joins
two sites. Each end names its site, border device, port, MMR and building entrance, like a
cross-connect does inside one site. Numbers are checked by the DCI rules (exit 1, with the
rule id), not here: a negative cost or a zero term is a design question, not unusable input.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from meetme.intent.schema_base import Node
from meetme.intent.types import Distinct, InterfaceName, Mtu, Name, PrefixV4, PrefixV6, Speed

# A finite number (YAML's .inf and .nan would make every sum meaningless).
Number = Annotated[float, Field(allow_inf_nan=False)]
Currency = Annotated[str, Field(pattern=r"^[A-Z]{3}$", description="ISO 4217 code, e.g. AUD.")]


class DciEnd(Node):
    site: Name
    device: Name = Field(description="A border router of that site.")
    interface: InterfaceName = Field(description="As the device's platform names it.")
    room: Name = Field(description="The meet-me room (kind: mmr) the circuit lands in.")
    entrance: Name = Field(description="The building entrance / pathway it comes in by.")


class Built(Node):
    """Our own dark fibre with our own DWDM: capex up front, opex every month."""

    route_km: Number = Field(description="Fibre route length, kilometres.")
    lead_time_weeks: int = Field(description="From order to service.")
    capex: Number = Field(description="One-off cost: IRU, DWDM terminals, amplifiers.")
    opex_monthly: Number = Field(description="Every month: fibre maintenance, ILA site rent.")


class Leased(Node):
    """A wave or Ethernet service bought from a carrier."""

    provider: Name
    capacity_gbps: int = Field(description="What the service carries (at most the port speed).")
    monthly: Number = Field(description="Monthly recurring charge.")
    term_months: int = Field(description="Contract term.")


class Diversity(Node):
    """Shared-risk tags: two circuits with a tag in common fail together when it does."""

    fibre_routes: Distinct[Name] = Field(default_factory=list, description="Fibre route segments.")
    ila_sites: Distinct[Name] = Field(
        default_factory=list, description="In-line amplifier huts the light passes."
    )
    providers: Distinct[Name] = Field(
        default_factory=list,
        description="Carriers the circuit depends on (a leased circuit's provider counts too).",
    )
    conduits: Distinct[Name] = Field(default_factory=list, description="Ducts and conduits.")


class DciCircuit(Node):
    a: DciEnd
    b: DciEnd
    speed: Speed = Field(description="Port speed at both ends.")
    latency_ms: Number = Field(description="One-way latency, milliseconds.")
    built: Built | None = None
    leased: Leased | None = None
    diversity: Diversity = Field(default_factory=Diversity)
    index: int | None = Field(
        default=None,
        ge=0,
        description="The circuit's /31 and /127 are the index-th of dci.p2p_v4 / p2p_v6 (a end "
        "the lower address); never renumber. Without it the ports render unaddressed.",
    )
    mtu: Mtu | None = Field(
        default=None,
        description="IP MTU of both DCI ports; default the lower underlay MTU of the two sites.",
    )

    @model_validator(mode="after")
    def _one_economics(self) -> DciCircuit:
        if (self.built is None) == (self.leased is None):
            raise ValueError(
                "a DCI circuit is either built (dark fibre + DWDM) or leased (a wave or "
                "Ethernet service): give exactly one of built: and leased:"
            )
        return self


class DciNeed(Node):
    sites: Annotated[list[Name], Field(min_length=2, max_length=2)]
    capacity_gbps: int = Field(description="Needed between the two sites, even after a failure.")
    term_months: int | None = Field(
        default=None,
        description="Months build and lease are compared over; default: the longest lease "
        "term among the pair's circuits.",
    )


class Dci(Node):
    currency: Currency = "USD"
    p2p_v4: PrefixV4 | None = Field(default=None, description="The circuits' /31s, by index.")
    p2p_v6: PrefixV6 | None = Field(default=None, description="The circuits' /127s, by index.")
    circuits: dict[Name, DciCircuit] = Field(default_factory=dict)
    diverse_groups: dict[Name, Annotated[Distinct[Name], Field(min_length=2)]] = Field(
        default_factory=dict,
        description="Circuits that must share no fibre route, ILA site, provider or conduit.",
    )
    needs: list[DciNeed] = Field(default_factory=list)
