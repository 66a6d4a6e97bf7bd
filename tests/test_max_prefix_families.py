"""`max_prefix_v6` on the cloud on-ramps (AWS VIF, Azure peering, Google attachment) and the
handoff VRFs: an IPv6 session's own limit, defaulting to `max_prefix` (hunt-ipv6 7). Transit, PNI
and IX had `max_prefix_v4`/`_v6` already; these took one number for both families.

Read from the rendered configs, on every platform the example renders these sessions on: AWS
on EOS (aus1-bl1), Azure on NX-OS (aus1-bl3), Google on NVUE (aus1-bl5); the handoff between
EOS border leaves and IOS-XR borders (aus1) and NX-OS border leaves and EOS borders (mel1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import line_of, lint_repo, replace_in
from meetme.generators.render import render_device

from meetme.core.problems import IntentError
from meetme.pipeline import device_models

CLOUDS = "intent/aus1/clouds.yaml"
AUS1_HANDOFF = "intent/aus1/attachments.yaml"
MEL1_HANDOFF = "intent/mel1/tenants.yaml"


def _limits(text: str, address: str) -> list[str]:
    """Every prefix-limit line rendered for the neighbour at `address`, sorted: EOS's one-line
    `neighbor A maximum-routes`, and the `maximum-prefix` (IOS-XR, NX-OS) or `maximum:` (NVUE)
    lines of the neighbour's block. A handoff link's address also has its underlay session."""
    lines = text.splitlines()
    found = []
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith(f"neighbor {address} maximum-routes "):
            found.append(stripped)
        if stripped not in (f"neighbor {address}", f"'{address}':"):
            continue
        indent = len(line) - len(line.lstrip())
        for inner in lines[i + 1 :]:
            if inner.strip() and len(inner) - len(inner.lstrip()) <= indent:
                break
            if inner.strip().startswith(("maximum-prefix ", "maximum:")):
                found.append(inner.strip())
    return sorted(found)


def _rendered(example: Path, *devices: str) -> dict[str, str]:
    result = lint_repo(example)
    assert not result.errors, [f.message for f in result.errors]
    models = device_models(result)
    return {d: render_device(models[d]) for d in devices}


def _dual_stack_clouds(example: Path, aws: str, azure: str, gcp: str) -> None:
    """AWS private-1, the Azure private peering's primary link and Google syd-ead1 and
    syd-ead2 get IPv6 sessions (Google's on subnets apart, GCP-003); `aws`, `azure`, `gcp` are
    extra keys for private-1, the Azure peering and syd-ead1 (syd-ead2 never gets
    max_prefix_v6)."""
    clouds = example / CLOUDS
    replace_in(
        clouds,
        "peer_ipv4: 169.254.10.2, ",
        f'peer_ipv4: 169.254.10.2, ipv6: "2001:db8:aa:1::1/125", peer_ipv6: "2001:db8:aa:1::2", '
        f"{aws}",
    )
    replace_in(
        clouds,
        "ipv4: 172.16.0.0/30}",
        'ipv4: 172.16.0.0/30, ipv6: "2001:db8:a2:1::/126"}',
    )
    if azure:
        replace_in(clouds, "              vrf: storage\n", f"              vrf: storage\n{azure}")
    for peer, net, extra in (("169.254.20.1", "1", gcp), ("169.254.20.9", "2", "")):
        replace_in(
            clouds,
            f"peer_ipv4: {peer}, ",
            f'peer_ipv4: {peer}, ipv6: "2001:db8:c9:{net}::2/125", '
            f'peer_ipv6: "2001:db8:c9:{net}::1", {extra}',
        )


@pytest.mark.parametrize(
    ("given", "aws_v6", "azure_v6", "gcp_v6"),
    [
        (False, 100, 4000, 1000),  # none given: each IPv6 session takes max_prefix
        (True, 20, 150, 1),  # below max_prefix, to the smallest limit the intent takes
        (True, 101, 4001, 1001),  # one above max_prefix
    ],
)
def test_cloud_ipv6_sessions_take_their_own_limit(
    example: Path, given: bool, aws_v6: int, azure_v6: int, gcp_v6: int
) -> None:
    _dual_stack_clouds(
        example,
        aws=f"max_prefix_v6: {aws_v6}, " if given else "",
        azure=f"              max_prefix_v6: {azure_v6}\n" if given else "",
        gcp=f"max_prefix_v6: {gcp_v6}, " if given else "",
    )
    text = _rendered(example, "aus1-bl1", "aus1-bl3", "aus1-bl5", "aus1-bl6")
    # AWS on EOS: IPv4 keeps max_prefix (100)
    assert _limits(text["aus1-bl1"], "169.254.10.2") == [
        "neighbor 169.254.10.2 maximum-routes 100 warning-limit 80 percent"
    ]
    assert _limits(text["aus1-bl1"], "2001:db8:aa:1::2") == [
        f"neighbor 2001:db8:aa:1::2 maximum-routes {aws_v6} warning-limit 80 percent"
    ]
    # Azure on NX-OS (Microsoft takes the /126's second address): IPv4 keeps 4000
    assert _limits(text["aus1-bl3"], "172.16.0.2") == ["maximum-prefix 4000 80"]
    assert _limits(text["aus1-bl3"], "2001:db8:a2:1::2") == [f"maximum-prefix {azure_v6} 80"]
    # Google on NVUE: IPv4 keeps 1000; syd-ead2 (aus1-bl6), with no max_prefix_v6, 1000 in
    # IPv6 too
    assert _limits(text["aus1-bl5"], "169.254.20.1") == ["maximum: 1000"]
    assert _limits(text["aus1-bl5"], "2001:db8:c9:1::1") == [f"maximum: {gcp_v6}"]
    assert _limits(text["aus1-bl6"], "2001:db8:c9:2::1") == ["maximum: 1000"]


def test_a_zero_ipv6_cloud_limit_is_refused(example: Path) -> None:
    _dual_stack_clouds(example, aws="max_prefix_v6: 0, ", azure="", gcp="")
    with pytest.raises(IntentError) as caught:
        lint_repo(example)
    assert [(p.location.file, p.location.line, p.message) for p in caught.value.problems] == [
        (
            CLOUDS,
            line_of(example / CLOUDS, "private-1:"),
            # the VIF's name `private-1` is the user's, not a secret's field: the value shows
            "sites.aus1.peering.aws.aws-syd.vifs.private-1.max_prefix_v6: must be between 1 and "
            "10000000, got 0",
        )
    ]


# Handoff: aus1 gpu-a and mel1 gpu-b have max_prefix 10; the borders' IPv4 sessions are raised
# to what their import admits: export_north 10.x/16 to /24 (511: the /16 and every longer
# prefix up to /24), and the public prefixes (aus1's /26: 512; mel1 has no IPv4 public, 511);
# the IPv6 ones admit the public /64 alone, so the VRF's own limit shows on both ends.

HANDOFF_SESSIONS = {  # device: (its VRF, an IPv4 handoff neighbour, an IPv6 one)
    "aus1-bl1": ("gpu-a", "10.1.21.1", "2001:db8:0:1000::1501"),  # EOS border leaf
    "aus1-br1": ("gpu-a", "10.1.21.0", "2001:db8:0:1000::1500"),  # IOS-XR border
    "mel1-bl1": ("gpu-b", "10.3.31.1", "2001:db8:2:1000::1f01"),  # NX-OS border leaf
    "mel1-br1": ("gpu-b", "10.3.31.0", "2001:db8:2:1000::1f00"),  # EOS border
}


def _vrf_in_router_bgp(text: str, vrf: str) -> str:
    """The `vrf NAME` block under `router bgp` (interfaces have `vrf` lines too); the link's
    address also has an underlay session and one per other VRF of the handoff."""
    lines = text.splitlines()
    bgp = next(i for i, line in enumerate(lines) if line.startswith("router bgp "))
    start = next(i for i in range(bgp, len(lines)) if lines[i].strip() == f"vrf {vrf}")
    indent = len(lines[start]) - len(lines[start].lstrip())
    end = next(
        (
            i
            for i in range(start + 1, len(lines))
            if lines[i].strip() and len(lines[i]) - len(lines[i].lstrip()) <= indent
        ),
        len(lines),
    )
    return "\n".join(lines[start:end])


def _form(device: str, address: str, limit: int) -> str:
    if device in ("aus1-bl1", "mel1-br1"):  # EOS
        return f"neighbor {address} maximum-routes {limit} warning-limit 80 percent"
    return f"maximum-prefix {limit} 80 restart 5"  # IOS-XR, NX-OS: retried after 5 minutes


@pytest.mark.parametrize("v6", [None, 1, 11])
def test_handoff_ipv6_sessions_take_their_own_limit(example: Path, v6: int | None) -> None:
    """None: IPv6 takes max_prefix (10); 1, the smallest the intent takes; 11, one above."""
    if v6 is not None:
        for file, vrf in ((AUS1_HANDOFF, "gpu-a:   {vlan: 3101"), (MEL1_HANDOFF, "gpu-b:   {")):
            text = (example / file).read_text()
            line = next(x for x in text.splitlines() if vrf in x)
            replace_in(
                example / file,
                line,
                line.replace("max_prefix: 10}", f"max_prefix: 10, max_prefix_v6: {v6}}}"),
            )
    text = _rendered(example, *HANDOFF_SESSIONS)
    for device, (vrf, v4_peer, v6_peer) in HANDOFF_SESSIONS.items():
        block = _vrf_in_router_bgp(text[device], vrf)
        v4 = {"aus1-br1": 512, "mel1-br1": 511}.get(device, 10)
        assert _limits(block, v4_peer) == [_form(device, v4_peer, v4)], device
        assert _limits(block, v6_peer) == [_form(device, v6_peer, 10 if v6 is None else v6)], device
