"""A device model in FRRouting's own configuration language (`frr.conf`, FRR 8.4).

The sixth rendering of the one device model, for the twin only: it is not a platform a user
selects in intent (generators/platforms knows nothing of it). Interfaces carry the twin's
Linux names (`names.linux_name`). What FRR in a namespace cannot run here is left out of the
text and said once in the template: TCP-MD5 keys (the model holds placeholders only), BFD
(no bfdd in the twin: a link down is seen at once on a veth) and RPKI (no validator: no route
is invalid, so a clause matching invalid routes matches nothing and is omitted).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

import jinja2

from meetme.generators.model import DeviceModel, Interface
from meetme.generators.platforms.spellings import as_path_regexes
from meetme.twin.names import linux_name


@dataclass(frozen=True)
class TwinInterface:
    """An interface of the model as the twin names it."""

    name: str  # the Linux name
    model: Interface


def twin_interfaces(model: DeviceModel) -> tuple[TwinInterface, ...]:
    """The model's addressed interfaces other than loopbacks and SVIs, with Linux names."""
    return tuple(
        TwinInterface(linux_name(i.name), i)
        for i in model.interfaces
        if i.kind in ("routed", "subinterface") and (i.ipv4 or i.ipv6)
    )


def loopback_addresses(model: DeviceModel) -> tuple[str, ...]:
    """Every loopback address of the model: all of them live on `lo` in a namespace."""
    found: list[str] = []
    for lo in model.loopbacks:
        found += [a.cidr for a in (lo.ipv4, lo.ipv6) if a is not None]
    return tuple(found)


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(resources.files("meetme.templates").joinpath("frr"))),
        undefined=jinja2.StrictUndefined,  # a missing model field is a bug, never a blank
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,  # router configuration, not HTML
    )
    env.filters["as_path_regexes"] = as_path_regexes
    return env


_ENV: jinja2.Environment | None = None


def template(name: str) -> jinja2.Template:
    global _ENV
    if _ENV is None:
        _ENV = _environment()
    return _ENV.get_template(name)


def render_frr(model: DeviceModel) -> str:
    """The device's `frr.conf` text."""
    text = template("device.j2").render(
        device=model,
        interfaces=twin_interfaces(model),
        loopbacks=loopback_addresses(model),
        vrf_names=vrf_names(model),
    )
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


def vrf_names(model: DeviceModel) -> list[str]:
    """The tenant VRFs on the device: EVPN IP-VRFs and plain (VRF-lite) ones."""
    evpn = {v.name for v in model.evpn.vrfs} if model.evpn else set()
    return sorted({v.name for v in model.vrfs} | evpn)
