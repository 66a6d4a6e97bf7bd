"""An ICMP echo probe for the twin, run inside a namespace (`ip netns exec NS python -m
meetme.twin.probe ADDRESS ...`): it prints, one a line, the addresses that answered within
the timeout. The twin needs no `ping` binary (the machine may have none); a raw socket is
enough for root (RFC 792 echo, RFC 4443 echo for IPv6: the kernel sums ICMPv6 itself).
"""

from __future__ import annotations

import ipaddress
import os
import select
import socket
import struct
import sys
import time

TIMEOUT = 1.5  # seconds for every answer


def _checksum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    total = sum(int(word) for word in struct.unpack(f"!{len(data) // 2}H", data))
    total = (total >> 16) + (total & 0xFFFF)
    total += total >> 16
    return ~total & 0xFFFF


def probe(addresses: list[str], timeout: float = TIMEOUT) -> set[str]:
    """The addresses (normalised) that answered one echo request each."""
    ident = os.getpid() & 0xFFFF
    v4 = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    v6 = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
    waiting: dict[str, int] = {}
    for seq, given in enumerate(addresses, start=1):
        address = str(ipaddress.ip_address(given))
        six = ipaddress.ip_address(address).version == 6
        kind = 128 if six else 8  # echo request
        header = struct.pack("!BBHHH", kind, 0, 0, ident, seq)
        payload = b"meetme-twin"
        if not six:
            header = struct.pack("!BBHHH", kind, 0, _checksum(header + payload), ident, seq)
        try:
            (v6 if six else v4).sendto(header + payload, (address, 0))
        except OSError:
            continue  # no route: it cannot answer
        waiting[address] = seq
    answered: set[str] = set()
    deadline = time.monotonic() + timeout
    while waiting.keys() - answered and time.monotonic() < deadline:
        ready, _, _ = select.select([v4, v6], [], [], max(0.0, deadline - time.monotonic()))
        for sock in ready:
            data, source = sock.recvfrom(2048)
            if sock is v4:
                data = data[(data[0] & 0x0F) * 4 :]  # past the IPv4 header
            kind, _, _, got_ident, seq = struct.unpack("!BBHHH", data[:8])
            if kind in (0, 129) and got_ident == ident:
                host = str(ipaddress.ip_address(source[0].split("%")[0]))
                if waiting.get(host) == seq:
                    answered.add(host)
    return answered


if __name__ == "__main__":
    for found in sorted(probe(sys.argv[1:])):
        print(found)
