"""Edits of the example's tenants and attachments that the overlay, multihoming and handoff
rule tests share."""

from __future__ import annotations

import textwrap
from pathlib import Path

from conftest import replace_in

TENANTS = "intent/aus1/tenants.yaml"
ATTACHMENTS = "intent/aus1/attachments.yaml"  # the multihoming feature and the handoff
MLAG_PAIR = "dh1-r10-gpu-hosts"
ESI_PAIR = "dh1-r11-gpu-hosts"


def edit_tenants(repo: Path, old: str, new: str) -> Path:
    tenants = repo / TENANTS
    replace_in(tenants, old, new)
    return tenants


def edit_attachments(repo: Path, old: str, new: str) -> Path:
    attachments = repo / ATTACHMENTS
    replace_in(attachments, old, new)
    return attachments


def add_attachment(repo: Path, name: str, body: str) -> Path:
    """A further attachment, written between the example's two (so after the MLAG one)."""
    lines = "".join(f"        {line}\n" for line in textwrap.dedent(body).strip().splitlines())
    return edit_attachments(repo, f"      {ESI_PAIR}:", f"      {name}:\n{lines}      {ESI_PAIR}:")


MORE_MLAG_HOSTS = """
mode: mlag
leaves: [aus1-lf1, aus1-lf2]
ports: [swp5, swp6]
lag_base: 20
segment_base: 10
peer_link: [swp57, swp58]
anycast_vtep: 10.0.1.201/32
lacp_system_mac: "44:38:39:ff:00:01"
networks: [gpu-a-compute-1]
"""


ESI_ON_THE_CUMULUS_BORDER_LEAVES = """
mode: esi
leaves: [aus1-bl5, aus1-bl6]
ports: [swp20]
lacp_system_mac: "44:38:39:ff:00:02"
networks: [storage-back-1]
"""


def border_leaves_carry_storage_back_1(repo: Path) -> None:
    edit_tenants(
        repo,
        "l2vni: 10211, racks: [dh1-r10, dh1-r11, dh2-r10]}",
        "l2vni: 10211, racks: [dh1-r10, dh1-r11, dh2-r10], leaves: [aus1-bl5, aus1-bl6]}",
    )
