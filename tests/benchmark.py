"""Benchmark: lint and render a synthetic fabric of N devices; print devices/s and peak memory.

    python tests/benchmark.py --devices 1040

The peers' numbers (PEERS.md): pyavd renders 3-5 devices/s and needed 5 GB for 1,040 switches.
This is a measurement script, not a test: timing assertions in a test suite are flaky.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

from meetme.pipeline import device_models, lint, render_all, write_rendered

LEAF_PLATFORMS = [
    ("nvidia_nvue", "SN5600", "swp{n}"),
    ("cisco_nxos", "N9K-C9364D-GX2A", "Ethernet1/{n}"),
    ("arista_eos", "7060X6-64PE", "Ethernet{n}/1"),
]
SPINES = 8


def synthetic_intent(devices: int) -> str:
    leaves = devices - 2 - SPINES
    lines = [
        "organisation: {name: bench, asn: 64500, aggregates: [198.51.100.0/24]}",
        "sites:",
        "  bench1:",
        "    environment: lab",
        "    management: {gateway: 172.16.0.1}",
        "    pools: {loopback_v4: 10.0.0.0/20, loopback_v6: '2001:db8:0:ff::/64',",
        "            vtep_v4: 10.0.16.0/20, p2p_v4: 10.64.0.0/12,",
        "            p2p_v6: '2001:db8:1::/48', links_per_device: 64}",
        "    asn: {base: 4200000000, shared: {spine: 4200900000}}",
        "    rooms:",
        "      mdf-a: {kind: mdf, floor: 1, power: {A: ups-1a, B: ups-1b}, cooling_zone: c1}",
        "      mdf-b: {kind: mdf, floor: 2, power: {A: ups-2a, B: ups-2b}, cooling_zone: c2}",
        "      hall: {kind: data_hall, floor: 1, power: {A: ups-3a, B: ups-3b}, cooling_zone: c3}",
        "    racks: {ra: {room: mdf-a}, rb: {room: mdf-b}, rh: {room: hall}}",
        "    devices:",
        "      br1: {id: 1, role: border, platform: cisco_iosxr, model: 8201-32FH, room: mdf-a,",
        "            rack: ra, management: 172.16.0.11/16, power_feeds: [A, B]}",
        "      br2: {id: 2, role: border, platform: cisco_iosxr, model: 8201-32FH, room: mdf-b,",
        "            rack: rb, management: 172.16.0.12/16, power_feeds: [A, B]}",
    ]
    for index in range(SPINES):
        device_id = 11 + index
        lines.append(
            f"      sp{index + 1}: {{id: {device_id}, role: spine, platform: arista_eos,"
            f" model: 7060X6-64PE, room: hall, rack: rh,"
            f" management: 172.16.1.{device_id}/16, power_feeds: [A, B]}}"
        )
    for index in range(leaves):
        device_id = 101 + index
        platform, model, _ = LEAF_PLATFORMS[index % len(LEAF_PLATFORMS)]
        lines.append(
            f"      lf{device_id}: {{id: {device_id}, role: leaf, platform: {platform},"
            f" model: {model}, room: hall, rack: rh,"
            f" management: 172.16.{2 + device_id // 250}.{device_id % 250 + 1}/16}}"
        )
    lines += [
        "    link_rules:",
        "      - {name: spine-border, count: 2, speed: 400G,",
        "         a: {role: spine, interface: 'Ethernet{n}/1', first: 1, peer_id_base: 1},",
        "         b: {role: border, interface: 'FourHundredGigE0/0/0/{n}', peer_id_base: 11,"
        " first: 0}}",
    ]
    for platform, _, pattern in LEAF_PLATFORMS:
        lines += [
            f"      - {{name: leaf-spine-{platform}, speed: 400G,",
            f"         a: {{role: leaf, platform: {platform}, interface: '{pattern}', first: 1,"
            " peer_id_base: 11},",
            "         b: {role: spine, interface: 'Ethernet{n}/1', first: 9, peer_id_base: 101}}",
        ]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=1040)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        intent = Path(tmp) / "intent"
        intent.mkdir()
        (intent / "fabric.yaml").write_text(synthetic_intent(args.devices))
        start = time.perf_counter()
        result = lint(intent)
        linted = time.perf_counter()
        if result.errors:
            for finding in result.errors[:10]:
                print(finding, file=sys.stderr)
            return 1
        files = render_all(device_models(result))
        write_rendered(Path(tmp) / "rendered", files)
        done = time.perf_counter()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    total = done - start
    print(f"devices: {len(files)}")
    print(f"lint:    {linted - start:.2f} s ({len(result.findings)} findings)")
    print(f"render:  {done - linted:.2f} s")
    print(f"total:   {total:.2f} s = {len(files) / total:.0f} devices/s")
    print(f"peak memory: {peak_mb:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
