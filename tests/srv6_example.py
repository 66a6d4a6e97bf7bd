"""Helpers of the SRv6 tests: a third site derived from mel1, and models built without a lint."""

from __future__ import annotations

import shutil
from pathlib import Path

from meetme.generators.build.devices import build_models
from meetme.generators.model import DeviceModel
from meetme.generators.resolve.fabric import resolve_fabric

from meetme.intent.loader import LoadedIntent, load_intent

# mel1's numbers, and a third site's that collide with neither aus1 nor mel1
_THIRD_SITE = {
    "mel1": "per1",
    "10.2.": "10.4.",
    "10.3.": "10.5.",
    "2001:db8:2:": "2001:db8:4:",
    "192.168.20.": "192.168.40.",
    "42001": "42003",
    "10.9.2.": "10.9.4.",
    "2001:db8:4100:": "2001:db8:4200:",  # mel1's public /40 and the prefixes in it
}


def add_third_site(repo: Path, srv6_entry: str = "per1: {id: 3}") -> None:
    """intent/per1: mel1 copied under new names and numbers; joins the SRv6 domain."""
    source, target = repo / "intent" / "mel1", repo / "intent" / "per1"
    shutil.copytree(source, target)
    for path in target.glob("*.yaml"):
        text = path.read_text()
        for old, new in _THIRD_SITE.items():
            text = text.replace(old, new)
        path.write_text(text)
    srv6 = repo / "intent" / "srv6.yaml"
    text = srv6.read_text()
    marker = "    mel1: {id: 2, devices: []}\n"
    assert marker in text
    srv6.write_text(text.replace(marker, marker + f"    {srv6_entry}\n"))


def models_of(repo: Path) -> tuple[LoadedIntent, dict[str, DeviceModel]]:
    loaded = load_intent(repo / "intent")
    return loaded, build_models(loaded, resolve_fabric(loaded))
