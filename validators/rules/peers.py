"""The external peer ASNs written in a site's peering intent, each with where it is written."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from meetme.validators.engine import Path_, SiteContext


@dataclass(frozen=True)
class PeerAsn:
    kind: str  # transit, pni, ix_rs, ix_peer, aws, gcp (edge_sessions' kinds)
    label: str  # "transit transit-a", "IX route server ix-syd/rs1"
    asn: int
    path: Path_


def peer_asns(ctx: SiteContext) -> Iterator[PeerAsn]:
    """Every ASN we would configure as a remote AS. Azure's is not written in intent: it is
    Microsoft's, from validators/data/providers.yaml (AZ-003 keeps ours apart from it)."""
    peering = ctx.site.peering
    for ix_name, ix in sorted(peering.ixes.items()):
        for kind, what, neighbors in (
            ("ix_rs", "IX route server", ix.route_servers),
            ("ix_peer", "IX peer", ix.peers),
        ):
            for name, neighbor in sorted(neighbors.items()):
                yield PeerAsn(
                    kind, f"{what} {ix_name}/{name}", neighbor.asn, (*neighbor.path, "asn")
                )
    for kind, what, parties in (
        ("transit", "transit", peering.transits),
        ("pni", "PNI", peering.pnis),
    ):
        for name, party in sorted(parties.items()):
            yield PeerAsn(kind, f"{what} {name}", party.asn, (*party.path, "asn"))
    for name, aws in sorted(peering.aws.items()):
        for vif_name, vif in sorted(aws.vifs.items()):
            label = f"AWS VIF {name}/{vif_name}"
            yield PeerAsn("aws", label, vif.amazon_asn, (*vif.path, "amazon_asn"))
    for name, gcp in sorted(peering.gcp.items()):
        label = f"Google {name} Cloud Router"
        yield PeerAsn("gcp", label, gcp.cloud_router_asn, (*gcp.path, "cloud_router_asn"))
