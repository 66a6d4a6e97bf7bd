"""A twin out of date: `up` records what it built the twin from (the intent folder, digests of
its files and of meetme: meetme/twin/source.py) and `verify` refuses, exit 2 in one line, a
twin the intent on disk no longer builds, unless `--allow-stale`. The checks below run on a
state file written here (no root, no FRR); the last one, on a real twin, needs both."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from conftest import EXAMPLE_INTENT, replace_in
from typer.testing import CliRunner

import meetme.pipeline
from meetme.cli import app
from meetme.twin import names, runtime, source
from meetme.twin.topology import Twin, plan
from meetme.twin.verify import Result

SITE = "aus1"
# one more network in the storage VRF: a new host, new SVIs on dh2-r10's leaves
FRONT_4 = (
    "          storage-front-4: {vrf: storage, vlan: 204, l2vni: 10204, "
    "gateway_v4: 10.60.4.1/24, racks: [dh2-r10]}\n"
)
FRONT_5 = FRONT_4.replace("front-4", "front-5").replace("204", "205").replace(".4.1/", ".5.1/")


@cache
def example_plan() -> str:
    """The plan `up` writes for aus1 of the example (twin.json), under the default prefix."""
    result = meetme.pipeline.lint(EXAMPLE_INTENT)
    sessions = result.fabrics[SITE].edge.sessions
    return plan(SITE, meetme.pipeline.device_models(result), sessions).to_json()


@pytest.fixture
def twin_up(
    example: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, default_twin_prefix: None
) -> Path:
    """The state `up` leaves for aus1 of a copy of the example (its intent folder returned),
    under a state folder of the test's own; the twin is taken as running (no namespaces)."""
    monkeypatch.setattr(runtime, "STATE_ROOT", tmp_path / "run")
    monkeypatch.setattr(runtime, "refusal", lambda: None)  # root and FRR are not needed here
    monkeypatch.setattr(runtime, "alive", lambda state: True)
    intent = example / "intent"
    text = example_plan()
    state = runtime.State(SITE, Twin.from_json(text).digest, source=source.source_of(intent))
    state.save(runtime.state_path(SITE))
    runtime.plan_path(SITE).write_text(text)
    return intent


def no_lint(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if the intent is linted (planned again) from here on."""

    def linted(*args: object, **kwargs: object) -> None:
        raise AssertionError("the intent was linted")

    monkeypatch.setattr(meetme.pipeline, "lint", linted)


def verify(*args: str) -> tuple[int, list[str]]:
    done = CliRunner().invoke(app, ["twin", "verify", "--site", SITE, "--no-failover", *args])
    return done.exit_code, done.output.strip().splitlines()


class OneCheck:
    """Stands in for the routers: one passing check (verify's own checks need a twin)."""

    def __init__(self, twin: Twin) -> None:
        self.repaired: list[str] = []
        self.skipped: list[tuple[str, str]] = []

    def run(self, failover: bool = True) -> list[Result]:
        return [Result("sessions", True, "aus1-br1", "s", "aus1-br1: session is Established")]


def test_the_twin_of_the_intent_on_disk_is_current_without_linting_it(
    twin_up: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    no_lint(monkeypatch)
    assert source.stale(SITE) is None


@pytest.mark.parametrize(
    "edit",
    [
        (FRONT_4, FRONT_4 + FRONT_5),  # a network added
        (FRONT_4, ""),  # a network removed
    ],
    ids=["network-added", "network-removed"],
)
def test_verify_refuses_a_twin_whose_intent_changed_in_one_line_with_exit_2(
    twin_up: Path, edit: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    replace_in(twin_up / "aus1" / "tenants.yaml", *edit)
    monkeypatch.setattr("meetme.twin.verify.Verifier", None)  # no check may run
    code, lines = verify()
    assert code == 2
    assert lines == [
        f"meetme twin: the twin of aus1 is out of date: {twin_up} changed since `meetme twin "
        "up` built it; run `meetme twin up --site aus1` again to bring it up to date (or "
        "`meetme twin verify --allow-stale` to verify the twin as built); nothing was verified"
    ]


def test_allow_stale_verifies_the_twin_as_built_and_says_so(
    twin_up: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    replace_in(twin_up / "aus1" / "tenants.yaml", FRONT_4, FRONT_4 + FRONT_5)
    monkeypatch.setattr("meetme.twin.verify.Verifier", OneCheck)
    code, lines = verify("--allow-stale")
    assert code == 0
    assert lines == [
        "ok   sessions: 1/1",
        f"note: the twin of aus1 is out of date: {twin_up} changed since `meetme twin up` "
        "built it; --allow-stale: these results are of the twin as built",
        "0 of 1 checks failed",
    ]
    done = CliRunner().invoke(
        app, ["twin", "verify", "--site", SITE, "--no-failover", "--allow-stale", "--json"]
    )
    assert json.loads(done.stdout)["notes"] == [
        f"the twin of aus1 is out of date: {twin_up} changed since `meetme twin up` built it; "
        "--allow-stale: these results are of the twin as built"
    ]


def test_an_edit_that_changes_nothing_of_the_twin_keeps_it_current_and_is_recorded(
    twin_up: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A comment, and another site's tenants: the intent's files changed, the plan did not."""
    replace_in(twin_up / "aus1" / "tenants.yaml", "# EVPN-VXLAN services", "# The EVPN services")
    replace_in(twin_up / "mel1" / "tenants.yaml", "sites:", "# one comment more\nsites:")
    assert source.stale(SITE) is None
    no_lint(monkeypatch)  # the state now records the intent as it is: no lint again
    assert source.stale(SITE) is None
    monkeypatch.setattr("meetme.twin.verify.Verifier", OneCheck)
    assert verify() == (0, ["ok   sessions: 1/1", "0 of 1 checks failed"])


def test_meetme_changed_is_named_when_the_intent_did_not(
    twin_up: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """meetme itself changed since `up` (its code, templates, packages): the plan is made again;
    the same plan keeps the twin current, another one is meetme's doing, said so."""
    path = runtime.state_path(SITE)
    state = runtime.State.load(path)
    assert state is not None and state.source is not None
    built = state.source
    older = runtime.Source(built.intent, built.files, "0" * 64)
    runtime.State(SITE, state.digest, source=older).save(path)
    assert source.stale(SITE) is None  # the same plan: current, and recorded as such
    loaded = runtime.State.load(path)
    assert loaded is not None and loaded.source == built

    runtime.State(SITE, state.digest, source=older).save(path)
    # what an older meetme planned: one tenant network fewer
    runtime.plan_path(SITE).write_text(example_plan().replace("storage-front-4", "gone"))
    assert source.stale(SITE) == (
        "the twin of aus1 is out of date: meetme changed since `meetme twin up` built it"
    )


def test_a_twin_without_a_recorded_intent_or_whose_intent_is_gone_is_refused(
    twin_up: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = runtime.state_path(SITE)
    path.write_text('{"site": "aus1", "digest": "x", "namespaces": [], "processes": []}')
    code, lines = verify()
    assert code == 2
    assert lines == [
        "meetme twin: the twin of aus1 does not record the intent it was built from (an older "
        "meetme brought it up); run `meetme twin up --site aus1` again to bring it up to date "
        "(or `meetme twin verify --allow-stale` to verify the twin as built); nothing was "
        "verified"
    ]
    gone = twin_up.parent / "elsewhere"
    runtime.State(SITE, "x", source=runtime.Source(str(gone), "a", "b")).save(path)
    assert source.stale(SITE) == f"the twin of aus1 was built from {gone}, which is gone"


def test_up_of_a_twin_already_running_records_what_it_was_planned_from(
    twin_up: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`up` of an unchanged plan leaves the routers alone but records the source: the twin it
    left running is the one that intent builds (a state from an older meetme gains one)."""
    path = runtime.state_path(SITE)
    twin = Twin.from_json(example_plan())
    runtime.State(SITE, twin.digest).save(path)
    given = source.source_of(twin_up)
    assert runtime.up(twin, given) == "twin aus1: already up (0 namespaces)"
    state = runtime.State.load(path)
    assert state is not None and state.source == given
    assert source.stale(SITE) is None


def test_integration_verify_refuses_until_up_builds_the_intent_as_edited(tmp_path: Path) -> None:
    """On a real twin (root, FRR): `up`, a network added to the intent, `verify` refuses
    without running a check; `up` again rebuilds the twin and `verify` proves the new
    network's host. Under the integration tests' prefix (tests/twin_helpers.py)."""
    from twin_helpers import PREFIX, require_twin

    require_twin()
    env = {**os.environ, names.PREFIX_VARIABLE: PREFIX}
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["cp", "-r", str(EXAMPLE_INTENT), str(repo / "intent")], check=True)

    def meetme(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "meetme", "twin", *args],
            cwd=repo,
            capture_output=True,
            text=True,
            timeout=600,
            env=env,
        )

    def ours() -> list[str]:
        return sorted(ns for ns in runtime.netns_list() if ns.startswith(f"{PREFIX}{SITE}-"))

    meetme("down", "--site", SITE)
    assert ours() == []
    try:
        first = meetme("up", "--site", SITE)
        assert first.returncode == 0, first.stderr
        replace_in(repo / "intent" / "aus1" / "tenants.yaml", FRONT_4, FRONT_4 + FRONT_5)
        refused = meetme("verify", "--site", SITE, "--no-failover")
        assert (refused.returncode, refused.stdout) == (2, "")
        assert refused.stderr == (
            f"meetme twin: the twin of aus1 is out of date: {repo / 'intent'} changed since "
            "`meetme twin up` built it; run `meetme twin up --site aus1` again to bring it up to "
            "date (or `meetme twin verify --allow-stale` to verify the twin as built); nothing "
            "was verified\n"
        )
        again = meetme("up", "--site", SITE)
        assert again.returncode == 0 and "twin aus1: up, 47 routers in 81 namespaces" in (
            again.stdout
        ), again.stdout + again.stderr
        done = meetme("verify", "--site", SITE, "--no-failover", "--json")
        report = json.loads(done.stdout)
        assert done.returncode == 0 and report["passed"] is True
        # the one note a sound twin may carry: FRR 8.4's zebra, on a busy machine, leaving a
        # remote router MAC out of an L3VNI, which the twin installs and says so (cli.py)
        assert all(n.startswith("zebra (FRR 8.4) left remote router MACs") for n in report["notes"])
        hosts = {r["message"] for r in report["results"] if r["check"] == "hosts"}
        assert (
            "host storage_storage-front-5 (10.60.5.10) reaches its anycast gateway (10.60.5.1)"
            in hosts
        )
        assert (
            "host storage_storage-front-1 (10.60.1.10) reaches storage_storage-front-5 "
            "(10.60.5.10)" in hosts
        )
    finally:
        meetme("down", "--site", SITE)
    assert ours() == []
