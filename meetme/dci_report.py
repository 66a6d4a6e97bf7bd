"""`meetme report dci`: per site pair, capacity now and after the worst single failure, the
lowest latency, and building against leasing over the declared term, as a table, JSON and an
SVG chart of cumulative cost per Gbps (a person reads a crossover faster than a table).

The figures come from generators/resolve/dci.py, the source the DCI rules read too. The chart
is hand-written SVG like the twin's picture (meetme/twin/picture.py): no plotting dependency,
and the same intent draws the same bytes.
"""

from __future__ import annotations

import math
from html import escape
from pathlib import Path
from typing import Any

from rich.table import Table

from meetme.generators.resolve.dci import Option, PairFigures

CHART_MARK = "<!-- meetme report dci -->"
BUILD, LEASE, AXIS, GRID = "#1565c0", "#ef6c00", "#37474f", "#e0e0e0"
WIDTH, PANEL_H, MARGIN_L, MARGIN_R, MARGIN_T, GAP = 760, 300, 90, 30, 40, 50


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def _option_json(option: Option | None) -> dict[str, Any] | None:
    if option is None:
        return None
    return {
        "circuits": list(option.circuits),
        "capacity_gbps": option.capacity_gbps,
        "capex": _round(option.capex),
        "monthly": _round(option.monthly),
        "total": _round(option.total),
        "per_gbps_month": _round(option.per_gbps_month),
        "lead_time_weeks": option.lead_time_weeks,
    }


def as_json(pairs: list[PairFigures], currency: str) -> dict[str, Any]:
    """The report as data; money rounded to cents."""
    return {
        "currency": currency,
        "pairs": [
            {
                "sites": list(p.sites),
                "circuits": list(p.circuits),
                "capacity_gbps": p.capacity_gbps,
                "routed_gbps": p.routed_gbps,
                "after_failure_gbps": p.after_failure_gbps,
                "worst_failure": p.worst_failure,
                "after_shared_risk_gbps": p.after_shared_risk_gbps,
                "worst_shared_risk": p.worst_shared_risk,
                "need_gbps": p.need_gbps,
                "lowest_latency_ms": p.lowest_latency_ms,
                "term_months": p.term_months,
                "build": _option_json(p.build),
                "lease": _option_json(p.lease),
                "crossover_month": p.crossover_month,
            }
            for p in pairs
        ],
    }


def _money(value: float | None) -> str:
    return "-" if value is None else f"{value:,.2f}"


def tables(pairs: list[PairFigures], currency: str) -> list[Table]:
    """Capacity and latency per pair; then cost per pair and option."""
    capacity = Table(title="DCI capacity (Gbps) and latency", title_justify="left")
    for column in (
        "sites",
        "circuits",
        "now",
        "carrying routing",
        "after worst circuit failure",
        "after worst shared risk",
        "need",
        "lowest latency ms",
    ):
        capacity.add_column(column)
    for p in pairs:
        capacity.add_row(
            f"{p.sites[0]}-{p.sites[1]}",
            ", ".join(p.circuits) or "-",
            str(p.capacity_gbps),
            str(p.routed_gbps) + (" (DCI-009)" if p.routed_gbps < p.capacity_gbps else ""),
            f"{p.after_failure_gbps} ({p.worst_failure})" if p.worst_failure else "-",
            f"{p.after_shared_risk_gbps} ({p.worst_shared_risk})"
            if p.worst_shared_risk
            else "none",
            "-" if p.need_gbps is None else str(p.need_gbps),
            "-" if p.lowest_latency_ms is None else f"{p.lowest_latency_ms:g}",
        )
    cost = Table(title=f"DCI build against lease ({currency})", title_justify="left")
    for column in (
        "sites",
        "option",
        "circuits",
        "Gbps",
        "capex",
        "monthly",
        "term months",
        "total over term",
        "per Gbps per month",
        "building cheaper from month",
        "lead time weeks",
    ):
        cost.add_column(column)
    for p in pairs:
        for label, option in (("build", p.build), ("lease", p.lease)):
            if option is None:
                continue
            cost.add_row(
                f"{p.sites[0]}-{p.sites[1]}",
                label,
                ", ".join(option.circuits),
                str(option.capacity_gbps),
                _money(option.capex),
                _money(option.monthly),
                "-" if p.term_months is None else str(p.term_months),
                _money(option.total),
                _money(option.per_gbps_month),
                _crossover_text(p),
                "-" if option.lead_time_weeks is None else str(option.lead_time_weeks),
            )
    return [capacity, cost]


def _crossover_text(p: PairFigures) -> str:
    if p.build is None or p.lease is None:
        return "-"
    if p.crossover_month is None:
        return "never"
    return str(p.crossover_month)


# --- the chart ------------------------------------------------------------------------------


def _horizon(p: PairFigures) -> int:
    """Months on the x axis: the term, and past the crossover, at least a year."""
    months = [12, p.term_months or 0]
    if p.crossover_month is not None:
        months.append(math.ceil(p.crossover_month * 1.25))
    return max(months)


def _step(top: float) -> float:
    """A round tick step giving at most about five ticks up to `top`."""
    raw = max(top, 1e-9) / 5
    power: float = 10.0 ** math.floor(math.log10(raw))
    return next(k * power for k in (1.0, 2.0, 2.5, 5.0, 10.0) if k * power >= raw)


def _label_at(x: float, middle: float) -> str:
    """A text element's start beside a vertical line: to its left on the right half."""
    if x > middle:
        return f'<text x="{x - 4:.1f}" text-anchor="end"'
    return f'<text x="{x + 4:.1f}"'


def _panel(p: PairFigures, top_y: float, currency: str) -> list[str]:
    months = _horizon(p)
    options = [(n, o, c) for n, o, c in (("build", p.build, BUILD), ("lease", p.lease, LEASE)) if o]
    top = max((o.cumulative_per_gbps(months) for _, o, _ in options), default=1.0)
    step = _step(top)
    top = step * math.ceil(top / step) if top > 0 else step
    plot_w = WIDTH - MARGIN_L - MARGIN_R
    plot_h = PANEL_H - 70

    def x(month: float) -> float:
        return MARGIN_L + plot_w * month / months

    def y(value: float) -> float:
        return top_y + 30 + plot_h * (1 - value / top)

    out = [
        f'<text x="{MARGIN_L}" y="{top_y + 16:.1f}" font-size="14">{escape(p.sites[0])} - '
        f"{escape(p.sites[1])}: cumulative cost per Gbps ({escape(currency)})</text>"
    ]
    ticks = round(top / step)
    for k in range(ticks + 1):
        value = step * k
        out.append(
            f'<line x1="{MARGIN_L}" y1="{y(value):.1f}" x2="{MARGIN_L + plot_w}" '
            f'y2="{y(value):.1f}" stroke="{GRID}"/>'
            f'<text x="{MARGIN_L - 6}" y="{y(value) + 4:.1f}" text-anchor="end">'
            f"{value:,.0f}</text>"
        )
    x_step = max(1, int(_step(months)))
    for month in range(0, months + 1, x_step):
        out.append(
            f'<text x="{x(month):.1f}" y="{y(0) + 16:.1f}" text-anchor="middle">{month}</text>'
        )
    out.append(
        f'<text x="{MARGIN_L + plot_w / 2:.1f}" y="{y(0) + 32:.1f}" text-anchor="middle">'
        "months</text>"
        f'<line x1="{MARGIN_L}" y1="{y(0):.1f}" x2="{MARGIN_L + plot_w}" y2="{y(0):.1f}" '
        f'stroke="{AXIS}"/>'
        f'<line x1="{MARGIN_L}" y1="{y(0):.1f}" x2="{MARGIN_L}" y2="{y(top):.1f}" '
        f'stroke="{AXIS}"/>'
    )
    if p.term_months:
        out.append(
            f'<line x1="{x(p.term_months):.1f}" y1="{y(0):.1f}" x2="{x(p.term_months):.1f}" '
            f'y2="{y(top):.1f}" stroke="{AXIS}" stroke-dasharray="2 3"/>'
            f'{_label_at(x(p.term_months), MARGIN_L + plot_w / 2)} y="{y(top) + 12:.1f}">'
            f"term {p.term_months}</text>"
        )
    if p.crossover_month is not None and p.build is not None:
        month = p.crossover_month
        out.append(
            f'<line x1="{x(month):.1f}" y1="{y(0):.1f}" x2="{x(month):.1f}" y2="{y(top):.1f}" '
            f'stroke="{AXIS}" stroke-dasharray="6 4"/>'
            f'<circle cx="{x(month):.1f}" cy="{y(p.build.cumulative_per_gbps(month)):.1f}" '
            f'r="4" fill="{AXIS}"><title>building is cheaper from month {month}</title></circle>'
            f'{_label_at(x(month), MARGIN_L + plot_w / 2)} y="{y(top) + 26:.1f}">'
            f"building cheaper from month {month}</text>"
        )
    for row, (name, option, colour) in enumerate(options):
        points = " ".join(
            f"{x(m):.1f},{y(option.cumulative_per_gbps(m)):.1f}" for m in (0, months)
        )  # straight lines: capex at month 0, then the same every month
        out.append(
            f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2">'
            f"<title>{name}: {_money(option.capex / option.capacity_gbps)} up front, "
            f"{_money(option.monthly / option.capacity_gbps)} a month per Gbps</title>"
            "</polyline>"
            f'<rect x="{MARGIN_L + 10}" y="{y(top) + 8 + row * 16:.1f}" width="14" height="4" '
            f'fill="{colour}"/>'
            f'<text x="{MARGIN_L + 30}" y="{y(top) + 13 + row * 16:.1f}">{name} '
            f"({', '.join(escape(c) for c in option.circuits)})</text>"
        )
    if not options:
        out.append(f'<text x="{x(months / 2):.1f}" y="{y(top / 2):.1f}">no costs</text>')
    return out


def chart(pairs: list[PairFigures], currency: str) -> str:
    """One panel per site pair: cumulative cost per Gbps of building and of leasing."""
    height = MARGIN_T + max(1, len(pairs)) * (PANEL_H + GAP)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="11">',
        CHART_MARK,
        f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>',
        f'<text x="{MARGIN_L}" y="24" font-size="16">DCI: build against lease</text>',
    ]
    if not pairs:
        out.append(f'<text x="{MARGIN_L}" y="60">no DCI circuits in the intent</text>')
    for index, pair in enumerate(pairs):
        out.extend(_panel(pair, MARGIN_T + index * (PANEL_H + GAP), currency))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def is_chart(path: Path) -> bool:
    """A chart `meetme report dci --chart` wrote (or an empty file): safe to overwrite."""
    with path.open("rb") as handle:
        head = handle.read(512).decode("utf-8", "replace")
    return not head.strip() or CHART_MARK in head.split("\n")[:2]
