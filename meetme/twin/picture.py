"""The site as `verify` found it, as an SVG picture (`meetme twin verify --svg FILE`).

One box per router, party and host, in tiers from the Internet down to the tenant hosts; one
line per pair of BGP speakers, green when every session between them is Established, red
when one is not (its tooltip lists them). A box is red when a check about that node failed.
The text depends only on the twin and the results: the same run draws the same bytes.
"""

from __future__ import annotations

from html import escape

from meetme.twin.parties import CLOUDS
from meetme.twin.topology import Node, Twin
from meetme.twin.verify import Result

BOX_W, BOX_H = 118, 34
GAP_X, GAP_Y = 14, 96
MARGIN = 24
OK, BAD, NEUTRAL = "#2e7d32", "#c62828", "#607d8b"

# top to bottom: who is where in the picture
_TIERS = (
    "internet parties",
    "borders",
    "spines",
    "leaves",
    "clouds",
    "tenant hosts",
)


def _tier(node: Node) -> int:
    if node.kind == "party":
        return 4 if node.role in CLOUDS else 0
    if node.kind == "host":
        return 1 if node.role == "rpki caches" else 5
    return {"border": 1, "super_spine": 1, "spine": 2}.get(node.role, 3)


def _label(node: Node, site: str) -> str:
    name = node.name.removeprefix(f"{site}-")
    return name if len(name) <= 18 else name[:17] + "…"


def svg(twin: Twin, results: list[Result]) -> str:
    """The picture of `twin` with `results` (of one `verify`)."""
    tiers: list[list[Node]] = [[] for _ in _TIERS]
    for node in sorted(twin.nodes, key=lambda n: (n.kind != "device", n.role, n.name)):
        tiers[_tier(node)].append(node)
    width = MARGIN * 2 + max(len(t) for t in tiers) * (BOX_W + GAP_X)
    height = MARGIN * 2 + len(tiers) * (BOX_H + GAP_Y)
    where: dict[str, tuple[float, float]] = {}
    for row, nodes in enumerate(tiers):
        span = len(nodes) * (BOX_W + GAP_X) - GAP_X
        left = (width - span) / 2
        for k, node in enumerate(nodes):
            where[node.name] = (left + k * (BOX_W + GAP_X), MARGIN + 18 + row * (BOX_H + GAP_Y))
    # sessions by pair of ends
    pairs: dict[tuple[str, str], list[Result]] = {}
    for r in results:
        if r.peer and r.peer in where and r.device in where:
            a, b = sorted((r.device, r.peer))
            pairs.setdefault((a, b), []).append(r)
    failed = {r.device for r in results if not r.ok}
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="sans-serif" font-size="11">',
        f'<rect width="{width:.0f}" height="{height:.0f}" fill="#ffffff"/>',
        f'<text x="{MARGIN}" y="{MARGIN}" font-size="14">twin {escape(twin.site)}: '
        f"{len(results) - sum(1 for r in results if not r.ok)}/{len(results)} checks pass"
        "</text>",
    ]
    for (a, b), mine in sorted(pairs.items()):
        bad = [r for r in mine if not r.ok]
        (ax, ay), (bx, by) = where[a], where[b]
        tip = "\n".join(r.message for r in sorted(mine, key=lambda r: r.message))
        out.append(
            f'<line x1="{ax + BOX_W / 2:.1f}" y1="{ay + BOX_H / 2:.1f}" '
            f'x2="{bx + BOX_W / 2:.1f}" y2="{by + BOX_H / 2:.1f}" '
            f'stroke="{BAD if bad else OK}" stroke-width="{2.5 if bad else 1.2}">'
            f"<title>{escape(f'{a} - {b}: {len(mine) - len(bad)}/{len(mine)} up')}\n"
            f"{escape(tip)}</title></line>"
        )
    for name, (x, y) in sorted(where.items()):
        node = twin.node(name)
        colour = BAD if name in failed else (OK if node.kind == "device" else NEUTRAL)
        out.append(
            f"<g><title>{escape(node.name)} ({escape(node.kind)}, {escape(node.role)})</title>"
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{BOX_W}" height="{BOX_H}" rx="4" '
            f'fill="#fafafa" stroke="{colour}" stroke-width="{2.5 if name in failed else 1.5}"/>'
            f'<text x="{x + BOX_W / 2:.1f}" y="{y + 14:.1f}" text-anchor="middle">'
            f"{escape(_label(node, twin.site))}</text>"
            f'<text x="{x + BOX_W / 2:.1f}" y="{y + 27:.1f}" text-anchor="middle" '
            f'fill="#555555" font-size="9">{escape(node.role)}</text></g>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"
