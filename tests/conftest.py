"""Shared test helpers: a private copy of the example repository, text edits, lint runs, the
strict NVUE 5.16 object model."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import pytest
from pydantic import BaseModel

from meetme.pipeline import LintResult, lint

if TYPE_CHECKING:
    from emulator.lab import Lab

REPO = Path(__file__).resolve().parent.parent
EXAMPLE_INTENT = REPO / "intent"


@pytest.fixture(autouse=True, scope="session")
def private_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """meetme's private folder (compiled templates, the signing key, the record of the files
    it wrote) for this test session alone, in every process it starts too. The user's own
    outlives the session: a record left there by an earlier session at a path this one
    reuses (pytest numbers its temporary folders from 0 again once they are removed) made a
    user's file meetme's in tests/test_safety_outputs.py."""
    before = os.environ.get("MEETME_CACHE_DIR")
    folder = tmp_path_factory.mktemp("meetme-private")
    folder.chmod(0o700)
    os.environ["MEETME_CACHE_DIR"] = str(folder)
    yield
    if before is None:
        os.environ.pop("MEETME_CACHE_DIR", None)
    else:
        os.environ["MEETME_CACHE_DIR"] = before


@pytest.fixture
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A throw-away repository holding a copy of the example intent; cwd is set to it, so
    messages name files as `intent/aus1/devices.yaml`."""
    shutil.copytree(EXAMPLE_INTENT, tmp_path / "intent")
    monkeypatch.chdir(tmp_path)
    return tmp_path


# NVIDIA's NVUE 5.16 object model (the nvueschema package), which tests/helpers.py's `validate`
# checks rendered startup.yaml files against
SCHEMA_MODULE = "nvueschema.models.v5_16"
PRIVATE_NAME = "_meetme_nvue_v5_16_forbid"  # never the real module name: others stay untouched


@pytest.fixture(scope="session")
def forbid_schema() -> Iterator[type[BaseModel]]:
    """NvueConfig of a private copy of the 5.16 models with unknown keys forbidden."""
    shared = importlib.util.find_spec(SCHEMA_MODULE)
    assert shared is not None and shared.origin is not None, f"{SCHEMA_MODULE} is not installed"
    # A second copy of the same source under its own name: pydantic resolves the string
    # annotations against this copy's classes, never against the shared module.
    spec = importlib.util.spec_from_file_location(PRIVATE_NAME, shared.origin)
    assert spec is not None and spec.loader is not None
    module: ModuleType = importlib.util.module_from_spec(spec)
    sys.modules[PRIVATE_NAME] = module
    try:
        spec.loader.exec_module(module)
        classes = [
            obj
            for obj in vars(module).values()
            if isinstance(obj, type)
            and issubclass(obj, BaseModel)
            and obj.__module__ == PRIVATE_NAME
        ]
        root: type[BaseModel] = module.NvueConfig
        # The generated module defines leaves before parents: rebuild in that order, root last,
        # so every parent embeds the forbid-configured schema of its children.
        for cls in classes:
            cls.model_config["extra"] = "forbid"
        for cls in classes:
            if cls is not root:
                cls.model_rebuild(force=True)
        root.model_rebuild(force=True)
        yield root
    finally:
        sys.modules.pop(PRIVATE_NAME, None)


def replace_in(path: Path, old: str, new: str, count: int = 1) -> None:
    """Edit an intent file as an engineer would; fail loudly if the text is not there."""
    text = path.read_text()
    assert text.count(old) >= count, f"{old!r} not found {count} time(s) in {path}"
    path.write_text(text.replace(old, new, count))


def move_device(repo: Path, site: str, device: str, platform: str, model: str) -> Path:
    """Give one device of the example another platform and hardware model, in its own entry
    of `intent/<site>/devices.yaml` only; returns that file."""
    devices = repo / f"intent/{site}/devices.yaml"
    text = devices.read_text()
    at = text.index(f"      {device}:\n")
    end = text.find(f"\n      {site}-", at + 1)
    block = text[at : end if end >= 0 else len(text)]
    moved = re.sub(r"platform: \S+", f"platform: {platform}", block, count=1)
    moved = re.sub(r"model: \S+", f"model: {model}", moved, count=1)
    assert moved != block, f"{device} already is {platform} {model}"
    devices.write_text(text.replace(block, moved, 1))
    return devices


def no_transit_sends_a_default(repo: Path) -> None:
    """aus1's transits send no default route (`accept_default: false` on both)."""
    peering = repo / "intent/aus1/peering.yaml"
    replace_in(
        peering,
        "accept_default: true             # full table plus a default: the tenant VRFs' way out",
        "accept_default: false",
    )
    replace_in(peering, "accept_default: true", "accept_default: false")


def private_vrfs_online(repo: Path) -> None:
    """The example's private-only VRFs (aus1 gpu-a-mgmt and storage, mel1 storage) ask for
    `internet: default` again, as the example did before HANDOFF-013: their hosts have no
    public source, so the rule warns, but the default route is still rendered toward them.
    Tests of the default route's leak and south policies use them as a second and third
    Internet VRF beside the public ones."""
    attachments = repo / "intent/aus1/attachments.yaml"
    for vrf in (
        "gpu-a-mgmt: {vlan: 3102, export_north: [10.51.0.0/16]",
        "storage: {vlan: 3110, export_north: [10.60.0.0/16]",
    ):
        replace_in(attachments, f"{vrf}, internet: none,", f"{vrf}, internet: default,")
    mel1 = "storage: {vlan: 3110, export_north: [10.160.0.0/16], internet: "
    replace_in(
        repo / "intent/mel1/tenants.yaml",
        f"{mel1}none, max_prefix: 10}}  # private only",
        f"{mel1}default, max_prefix: 10}}",
    )


def gcp_dual_stack(repo: Path) -> None:
    """aus1's four Google attachments dual-stack (Cloud Interconnect's "IPv4 and IPv6"
    stack type): an IPv6 /125 each, Google's range 2001:db8:120::/48 agreed, gpu-a's
    2001:db8:50::/48 (its compute networks' /64s) advertised."""
    clouds = repo / "intent/aus1/clouds.yaml"
    for n, peer_v4 in enumerate(("169.254.20.1", "169.254.20.9", "169.254.21.1", "169.254.21.9")):
        replace_in(
            clouds,
            f"peer_ipv4: {peer_v4}, ",
            f'peer_ipv4: {peer_v4}, ipv6: "2001:db8:ff20:{n + 1}::2/125", '
            f'peer_ipv6: "2001:db8:ff20:{n + 1}::1", ',
        )
    replace_in(
        clouds, "receive: [10.120.0.0/16]", 'receive: [10.120.0.0/16, "2001:db8:120::/48"]', 4
    )
    for domain in (1, 2):  # Google's attachments end so, AWS's VIFs do not
        old = f"availability-domain-{domain}, advertise: [10.50.0.0/16]}}"
        replace_in(clouds, old, old.replace("]}", ', "2001:db8:50::/48"]}'), 2)


def line_of(path: Path, needle: str, occurrence: int = 1) -> int:
    """1-based line number of the n-th line containing `needle`."""
    seen = 0
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if needle in line:
            seen += 1
            if seen == occurrence:
                return number
    raise AssertionError(f"{needle!r} not found in {path}")


# What aus1's border pair carries besides the Internet table, in its fuller family (IPv6): the
# underlay's max_prefix (12000), the three routes a device originates, two aggregates (the
# organisation's /36 and aus1's /40) and one leaked public prefix (gpu-a's /64)
PAIR_BEYOND_INTERNET = 12000 + 3 + 2 + 1


def limits_within(repo: Path, largest: int) -> None:
    """aus1's external prefix limits low enough that every session's, the border pair's too,
    is at most `largest` (a platform's PLAT-022 bound): a border on NX-OS takes a partial
    table or a default, not the full table."""
    peering = repo / "intent/aus1/peering.yaml"
    internet = largest - PAIR_BEYOND_INTERNET
    peering.write_text(
        re.sub(
            r"(max_prefix_v[46]: )(\d+)",
            lambda m: f"{m[1]}{min(int(m[2]), internet)}",
            peering.read_text(),
        )
    )


def borders_to(repo: Path, platform: str, model: str, port: str) -> None:
    """aus1's two borders on `platform`; XR port N becomes `port` formatted with N + 1 in the
    link rules and the DCI circuits (the other hardware models number from 1)."""
    devices = repo / "intent/aus1/devices.yaml"
    old = "platform: cisco_iosxr\n        model: 8201-32FH"
    text = devices.read_text()
    assert text.count(old) == 2
    devices.write_text(text.replace(old, f"platform: {platform}\n        model: {model}"))
    for path in [*(repo / "intent/aus1").glob("*.yaml"), repo / "intent/dci.yaml"]:
        text = re.sub(
            r'(?:FourHundred|Hundred)GigE0/0/0/\{n\}", first: (\d+)',
            lambda m: f'{port.format("{n}")}", first: {int(m[1]) + 1}',
            path.read_text(),
        )
        text = re.sub(
            r"(?:FourHundred|Hundred)GigE0/0/0/(\d+)", lambda m: port.format(int(m[1]) + 1), text
        )
        path.write_text(text)
    # the SRv6 domain's aus1 borders are IOS-XR's (intent/srv6.yaml): moved, they leave it, as
    # SRv6 is refused elsewhere by its own rules (PLAT-018/019, tests/test_srv6_render.py)
    srv6 = repo / "intent/srv6.yaml"
    srv6.write_text(srv6.read_text().replace("[aus1-br1, aus1-br2, aus1-lf1", "[aus1-lf1"))


# mel1's border ports on the 7280R3 (EOS) and where they land on an 8201-32FH (IOS-XR, ports
# 0-31): the 100G ones as HundredGigE, the 400G ones as FourHundredGigE, none shared
_MEL1_BORDER_PORTS = {
    "intent/mel1/links.yaml": {
        'b: {role: border, interface: "Ethernet{n}/1", first: 33': (
            'b: {role: border, interface: "FourHundredGigE0/0/0/{n}", first: 8'
        ),
        'b: {role: border, interface: "Ethernet{n}/1", first: 1': (
            'b: {role: border, interface: "HundredGigE0/0/0/{n}", first: 0'
        ),
        "Ethernet30/1": "HundredGigE0/0/0/29",
        "Ethernet31/1": "HundredGigE0/0/0/30",
    },
    "intent/mel1/circuits.yaml": {
        "Ethernet36/1": "FourHundredGigE0/0/0/23",
        "Ethernet20/1": "HundredGigE0/0/0/19",
        "Ethernet21/1": "HundredGigE0/0/0/20",
    },
    "intent/mel1/peering.yaml": {"Ethernet25/1": "HundredGigE0/0/0/24"},
    "intent/dci.yaml": {"Ethernet35/1": "FourHundredGigE0/0/0/27"},
}


def mel1_borders_to_iosxr(repo: Path) -> None:
    """mel1's two borders on IOS-XR (Cisco 8201-32FH, as aus1's), every port renamed where it
    is written, and the two sites' shared tenant VRF `storage` riding SRv6 between them (mel1's
    borders take locators): the design the example cannot have with EOS borders (PLAT-018)."""
    replace_in(
        repo / "intent/mel1/devices.yaml",
        "platform: arista_eos\n        model: 7280CR3-32P4",
        "platform: cisco_iosxr\n        model: 8201-32FH",
        count=2,
    )
    for name, ports in _MEL1_BORDER_PORTS.items():
        for old, new in ports.items():
            replace_in(repo / name, old, new, count=2 if old.startswith("Ethernet") else 1)
    srv6 = repo / "intent/srv6.yaml"
    replace_in(srv6, "mel1: {id: 2, devices: []}", "mel1: {id: 2}")
    with srv6.open("a") as handle:
        handle.write("  vrfs:\n    storage: {id: 10, sites: [aus1, mel1]}\n")


def lint_repo(repo: Path) -> LintResult:
    return lint(repo / "intent")


def findings_of(result: LintResult, rule_id: str) -> list[str]:
    """'file:line: message' of every finding of one rule."""
    return [
        f"{f.location.file}:{f.location.line}: {f.message}"
        for f in result.findings
        if f.rule == rule_id
    ]


def _serve(built: Lab, secrets: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[Lab]:
    """A built lab as the push tests use it: cwd its repository, the example's lint and the
    lab's rendered files in the pipeline, `secrets` in the environment; stopped afterwards."""
    from emulator.lab import example_lint, lab_rendered_files

    monkeypatch.chdir(built.repo)
    monkeypatch.setattr("meetme.pipeline.lint", lambda folder: example_lint())
    monkeypatch.setattr("meetme.pipeline.rendered_files", lab_rendered_files(built))
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    try:
        yield built
    finally:
        built.stop()


@pytest.fixture
def lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Lab]:
    """Three EOS spines behind eAPI emulators on 127.0.0.1, the example rendered for them,
    every secret in the environment; cwd is the lab's repository."""
    from emulator.lab import SECRET_ENV, build_lab

    yield from _serve(build_lab(tmp_path), SECRET_ENV, monkeypatch)


@pytest.fixture
def xr_lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Lab]:
    """The example's two IOS-XR borders behind NETCONF emulators on 127.0.0.1 (br1 wave 1,
    br2 wave 2), every secret in the environment; cwd is the lab's repository."""
    from emulator.lab import XR_SECRET_ENV, build_xr_lab

    yield from _serve(build_xr_lab(tmp_path), XR_SECRET_ENV, monkeypatch)


@pytest.fixture
def nx_lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Lab]:
    """The example's NX-OS leaves aus1-lf3 (wave 1) and aus1-lf4 (wave 2) behind NX-API and
    SCP emulators on 127.0.0.1, every secret in the environment; cwd is the lab's repository."""
    from emulator.lab import NX_SECRET_ENV, build_nx_lab

    yield from _serve(build_nx_lab(tmp_path), NX_SECRET_ENV, monkeypatch)


@pytest.fixture
def nx10_lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Lab]:
    """As nx_lab, the switches on NX-OS 10.3(4a): configure replace with commit-timeout."""
    from emulator.lab import NX_SECRET_ENV, build_nx_lab

    yield from _serve(build_nx_lab(tmp_path, "10.3(4a)"), NX_SECRET_ENV, monkeypatch)


@pytest.fixture
def nv_lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Lab]:
    """The example's NVUE leaves aus1-lf1 (wave 1) and aus1-lf2 (wave 2) behind NVUE REST and
    SSH emulators on 127.0.0.1, every secret in the environment; cwd is the lab's repository."""
    from emulator.lab import SECRET_ENV, build_nv_lab

    yield from _serve(build_nv_lab(tmp_path), SECRET_ENV, monkeypatch)


@pytest.fixture
def mixed_lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Lab]:
    """One device of each platform (EOS spine, NVUE leaf, NX-OS leaf, IOS-XR border) behind
    its emulator on 127.0.0.1, every secret in the environment; cwd is the lab's repository."""
    from emulator.lab import NX_SECRET_ENV, SECRET_ENV, XR_SECRET_ENV, build_mixed_lab

    secrets = {**SECRET_ENV, **NX_SECRET_ENV, **XR_SECRET_ENV}
    yield from _serve(build_mixed_lab(tmp_path), secrets, monkeypatch)


@pytest.fixture
def default_twin_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    """The twin's names as meetme gives them without MEETME_TWIN_PREFIX (`mm-`), which the
    twin's plan tests spell out: an engineer who exports a prefix of their own for the
    integration tests (tests/twin_helpers.py) must not fail them."""
    from meetme.twin import names

    monkeypatch.delenv(names.PREFIX_VARIABLE, raising=False)
    monkeypatch.setattr(names, "PREFIX", names.DEFAULT_PREFIX)


# The lint report's last line, which `render` and `check` print before their own lines when the
# intent has findings: the example has two (DCI-009: its circuits to mel1 carry no routing).
_REPORT_END = re.compile(r"^\d+ error\(s\), \d+ warning\(s\)[^\n]*\n", re.M)


def after_report(output: str) -> str:
    """What a command printed after its lint report (all of it when there was none)."""
    end = _REPORT_END.search(output)
    return output[end.end() :] if end else output
