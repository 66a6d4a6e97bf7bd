"""Plan and push through NAPALM: waves, two phases per wave, commit-confirm, checks, rollback.

A push runs the waves in ascending order. Inside a wave, devices are worked on in parallel
(plain threads, at most `concurrency` at once) in two phases:

1. prepare: connect, load the rendered config as a replace candidate (secrets substituted in
   memory, and only at the positions the templates print secrets: secret_positions.py), read
   the device's own diff. If any device of the wave fails here, every prepared
   candidate of the wave is discarded: nothing of the wave is committed, later waves never start.
2. apply, per device: commit (with a confirm timer the device enforces on drivers that have
   one, EOS), post-check the expected BGP neighbours, then confirm, or roll back on failure.
   The first failure stops later waves and devices of the wave not yet started.

When the management connection is lost after a commit with a timer, meetme cannot roll back;
it waits for the device's own timer, then reconnects and verifies that the change is gone.

`interrupt()` (Ctrl-C, meetme/deploy_cli.py) stops the run as a failure does, with the reason
said: nothing starts any more, the devices in flight finish, run-end says `interrupted`.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from meetme.deploy.checks import (
    CheckResult,
    check_bgp,
    check_links,
    check_overlay,
    check_ports,
    expected_links,
    expected_neighbors,
    expected_overlay,
    expected_ports,
)
from meetme.deploy.inventory import CHECKPOINT_DRIVERS, COMMIT_CONFIRM_DRIVERS, Settings
from meetme.deploy.journal import Journal, diff_hash
from meetme.deploy.secret_positions import VALUE_ESCAPES, hide_values, misplaced_placeholders
from meetme.deploy.secret_store import SecretStore, placeholders_in
from meetme.deploy.targets import Target

DriverFactory = Callable[[Target, str, str, int], Any]
T = TypeVar("T")
R = TypeVar("R")

# Outcomes. Plan: changes / no-changes / failed. Push: the rest.
OK_STATUSES = frozenset({"changes", "no-changes", "not-supported", "committed", "unchanged"})
UNKNOWN = "unknown"  # meetme could not establish the device's state: look at it by hand
OWN_SESSION_PREFIX = "meetme-"  # every config session meetme opens on EOS: meetme-<run id>
# States of an EOS config session that hold the configuration lock (napalm's _lock refuses
# any of them with a bare SessionLockedException) or a commit still waiting for its confirm.
_BLOCKING_STATES = {"pending", "pendingCommitTimer"}
INTERRUPTED_SKIP = "interrupted (Ctrl-C): not started"


@dataclass
class DeviceResult:
    device: str
    wave: int
    driver: str
    host: str
    status: str = "pending"
    added: int = 0
    removed: int = 0
    diff: str | None = None  # masked: placeholders instead of secret values
    diff_sha256: str | None = None
    detail: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class _Live:
    """One device's open connection between the phases of a wave."""

    target: Target
    result: DeviceResult
    driver: Any = None
    resolved: str = field(default="", repr=False)
    timed: bool = False  # committed under a timer the device enforces (it reverts by itself)


def _driver_class(name: str) -> Any:
    """NAPALM's driver, or meetme's adapter where NAPALM lacks a device-side safety net."""
    if name == "iosxr_netconf":  # NETCONF confirmed commit (deploy/iosxr_netconf.py)
        from meetme.deploy.iosxr_netconf import IosxrNetconf

        return IosxrNetconf
    if name == "nvue":  # NVUE REST, the confirm timer over SSH (deploy/nvue_rest.py)
        from meetme.deploy.nvue_rest import NvueRest

        return NvueRest
    if name == "nxos":  # NX-API with a named checkpoint (deploy/nxos_checkpoint.py)
        from meetme.deploy.nxos_checkpoint import NxosCheckpoint

        return NxosCheckpoint
    from napalm import get_network_driver

    return get_network_driver(name)


def preload_drivers(names: Iterable[str]) -> None:
    """Import each NAPALM driver once, in this thread, before worker threads start: CPython 3.11
    compiling modules in several threads at once can fail ('AST constructor recursion depth
    mismatch'), and device threads would otherwise each import their driver."""
    for name in sorted(set(names)):
        _driver_class(name)


def napalm_driver(target: Target, username: str, password: str, timeout: int) -> Any:
    """Open a NAPALM driver or meetme's adapter (imported here: `meetme lint` must not pay for
    napalm)."""
    optional: dict[str, Any] = {}
    if target.entry.port is not None:
        optional["port"] = target.entry.port
    if target.entry.transport is not None:
        optional["transport"] = target.entry.transport
    if target.entry.ssh_port is not None:
        optional["ssh_port"] = target.entry.ssh_port
    driver = _driver_class(target.entry.driver)(
        hostname=target.entry.host,
        username=username,
        password=password,
        timeout=timeout,
        optional_args=optional,
    )
    driver.open()
    return driver


# What NX-OS prints around a rollback patch, which is no command of it.
_PATCH_NOTES = ("Collecting Running-Config", "Rollback Patch is Empty")


def diff_counts(diff: str) -> tuple[int, int]:
    """(added, removed) lines of a unified diff; of an NX-OS rollback patch, which has no
    `+`/`-` (commands that undo the difference: `show diff rollback-patch`), the `no`
    commands as removed and the others (with the block headers they enter) as added."""
    lines = diff.splitlines()
    added = sum(1 for x in lines if x.startswith("+") and not x.startswith("+++"))
    removed = sum(1 for x in lines if x.startswith("-") and not x.startswith("---"))
    if added or removed:
        return added, removed
    commands = [
        x.strip()
        for x in lines
        if x.strip() and not x.lstrip().startswith(("#", "!")) and x.strip() not in _PATCH_NOTES
    ]
    removed = sum(1 for x in commands if x.startswith("no "))
    return len(commands) - removed, removed


def _names_itself(answered: str, names: list[str]) -> bool:
    """Whether the hostname a device answers with is one of `names`; a device may answer
    with its FQDN (a domain name configured): its first label counts."""
    wanted = {x.casefold() for x in names}
    return answered.casefold() in wanted or answered.split(".")[0].casefold() in wanted


class Engine:
    def __init__(
        self,
        targets: list[Target],
        settings: Settings,
        secrets: SecretStore,
        journal: Journal,
        driver_factory: DriverFactory = napalm_driver,
        sleep: Callable[[float], None] = time.sleep,
        previous: dict[str, str] | None = None,
        clean_own_sessions: bool = False,
        run_info: dict[str, Any] | None = None,
    ) -> None:
        self.targets = sorted(targets, key=lambda t: (t.entry.wave, t.name))
        self.settings = settings
        self.secrets = secrets
        self.journal = journal
        self.factory = driver_factory
        if driver_factory is napalm_driver:
            preload_drivers(t.entry.driver for t in self.targets if t.supported)
        self.sleep = sleep
        # what earlier, interrupted pushes left on each device (from their journals)
        self.previous = previous or {}
        self.clean_own_sessions = clean_own_sessions
        self.run_info = run_info or {}
        # EOS config sessions meetme opens carry this name: recognisable as ours on the device
        self.session_name = f"{OWN_SESSION_PREFIX}{journal.run.get('run', 'run')}"
        self.stop = threading.Event()
        # Ctrl-C (deploy_cli's SIGINT handler): no device or wave starts any more
        self.interrupted = threading.Event()
        self.results = {
            t.name: DeviceResult(t.name, t.entry.wave, t.entry.driver, _address(t))
            for t in self.targets
        }

    def interrupt(self) -> None:
        """Start nothing more: devices not started are skipped, later waves too; a device in
        flight finishes (confirmed or rolled back, a candidate not yet committed discarded)."""
        self.interrupted.set()
        self.stop.set()

    # ---- the two commands -------------------------------------------------------------------

    def plan(self) -> list[DeviceResult]:
        """Load, diff and discard on every device; nothing is committed."""
        self._record_run("run-start", "ok")
        self._parallel(self.targets, self._plan_one)
        self._record_run("run-end", self._outcome())
        return self._ordered()

    def push(self) -> list[DeviceResult]:
        self._record_run("run-start", "ok")
        for wave in sorted({t.entry.wave for t in self.targets}):
            members = [t for t in self.targets if t.entry.wave == wave]
            if self.stop.is_set():
                why = "an earlier wave failed; this wave was not started"
                if self.interrupted.is_set():
                    why = INTERRUPTED_SKIP
                for target in members:
                    self._skip(target, why)
                continue
            live = self._parallel(members, self._prepare)
            failed = [x for x in live if x.driver is None and x.result.status != "skipped"]
            if failed or self.interrupted.is_set():
                self.stop.set()
                culprit = ", ".join(x.target.name for x in failed)
                why = f"wave {wave} aborted before any commit: {culprit}"
                if not failed:
                    why = f"interrupted (Ctrl-C) before any commit of wave {wave}"
                for item in live:
                    if item.driver is not None:
                        self._discard(item, why)
                continue
            changed = [x for x in live if x.result.diff]
            for item in live:
                if not item.result.diff:
                    self._discard(item, "no changes")
                    item.result.status = "unchanged"
            self._parallel(changed, self._apply)
            if any(self.results[t.name].status not in OK_STATUSES for t in members):
                self.stop.set()
        self._record_run("run-end", self._outcome())
        return self._ordered()

    # ---- phases ------------------------------------------------------------------------------

    def _plan_one(self, target: Target) -> None:
        if not target.supported:
            self._skip(target, f"no push adapter for {target.entry.driver} yet (docs/push.md)")
            self.results[target.name].status = "not-supported"
            return
        item = self._prepare(target)
        if item.driver is None:
            return
        self._discard(item, "plan only: nothing committed")
        item.result.status = "changes" if item.result.diff else "no-changes"

    def _prepare(self, target: Target) -> _Live:
        result = self.results[target.name]
        item = _Live(target, result)
        if self.interrupted.is_set():  # queued behind the concurrency limit: not started
            self._skip(target, INTERRUPTED_SKIP)
            return item
        step = self._step(target)
        refusal = self._resolve(item)
        if refusal:  # pre-flight refuses these; this guards callers that skip it
            step("load", "failed", refusal)
            result.status, result.detail = "failed", f"load: {refusal}"
            return item
        try:
            driver = self._open(target)
        except Exception as exc:
            step("connect", "failed", self._describe(exc))
            result.status, result.detail = "failed", f"connect: {self._describe(exc)}"
            return item
        step("connect", "ok", f"{target.entry.driver} {result.host}")
        if not self._identity(target, driver):
            self._close(driver)
            return item
        if target.entry.driver == "eos" and not self._inspect(target, driver):
            self._close(driver)
            return item
        if hasattr(driver, "pending") and not self._inspect_lock(target, driver):
            self._close(driver)
            return item
        if hasattr(driver, "checkpoint_name") and not (  # NX-OS: leftovers first, so that
            # a device the journal's look stops keeps no secrets file either
            self._clean_leftovers(target, driver) and self._inspect_journal(target, driver)
        ):
            self._close(driver)
            return item
        if target.entry.driver == "nvue" and not self._inspect_confirm(target, driver):
            self._close(driver)
            return item
        if target.entry.driver == "eos":  # napalm's attribute: our session name, not napalm_<µs>;
            # set at the load, so that closing a driver stopped before it aborts nothing
            driver.config_session = self.session_name
        try:
            driver.load_replace_candidate(config=item.resolved)
        except Exception as exc:
            step("load", "failed", self._describe(exc))
            result.status, result.detail = "failed", f"load: {self._describe(exc)}"
            if target.entry.driver == "eos" and type(exc).__name__ != "ReplaceConfigException":
                # Not the device's answer (napalm has aborted the session then) but a timeout
                # or a lost connection: the load may still finish on the device and leave our
                # session pending, locking every later push. Wait for it and abort it.
                self._clean_after_lost_load(target, driver)
            self._quietly(driver.discard_config)
            self._close(driver)
            if hasattr(driver, "pending") and type(exc).__name__ != "ReplaceConfigException":
                step(  # NETCONF: the session's end drops its candidate changes and lock
                    "cleanup",
                    "ok",
                    "discarded the candidate and closed the session: the router drops the "
                    "uncommitted changes and the lock of a session that ends (RFC 6241 §7.5)",
                )
            return item
        step("load", "ok", f"replace candidate from {target.rendered.name}")
        try:
            diff = self._diff_of(driver)
        except Exception as exc:
            step("diff", "failed", self._describe(exc))
            result.status, result.detail = "failed", f"diff: {self._describe(exc)}"
            self._quietly(driver.discard_config)
            self._close(driver)
            return item
        result.diff = diff
        result.diff_sha256 = diff_hash(diff)
        result.added, result.removed = diff_counts(diff)
        step(
            "diff",
            "ok",
            f"+{result.added} -{result.removed}" if diff else "no changes",
            diff_sha256=result.diff_sha256,
            diff=diff,
        )
        item.driver = driver
        return item

    def _apply(self, item: _Live) -> None:
        target, result, driver = item.target, item.result, item.driver
        step = self._step(target)
        if self.stop.is_set():
            why = "not started: another device of the wave failed"
            if self.interrupted.is_set():
                why = "not committed: interrupted (Ctrl-C) before its commit"
            self._discard(item, why)
            result.status = "skipped"
            return
        confirm = target.entry.driver in COMMIT_CONFIRM_DRIVERS
        checkpointed = target.entry.driver in CHECKPOINT_DRIVERS
        timer = self.settings.confirm_timer
        if checkpointed and self._switch_timer(driver, timer):  # NX-OS 9.3+: commit-timeout
            confirm, checkpointed = True, False
        item.timed = confirm
        started = time.monotonic()
        try:
            if confirm:
                driver.commit_config(revert_in=timer)
            else:
                driver.commit_config()
        except Exception as exc:
            self.stop.set()
            step("commit", "failed", self._describe(exc))
            result.detail = f"commit: {self._describe(exc)}"
            if confirm:
                self._undo(item, started, "commit")
            elif checkpointed:
                self._restore_checkpoint(item, "commit")
            else:
                # A rollback here could restore an older commit than ours: leave it to a person.
                result.status = UNKNOWN
                result.detail += "; state unknown: compare with `meetme plan`"
                self._close(driver)
            return
        if getattr(driver, "reverts_itself", False):
            how = (
                f"configure replace commit-timeout {timer} s: the switch restores the config "
                "before it unless `configure replace commit` arrives"
            )
        elif confirm:
            how = f"confirm timer {timer} s"
        elif checkpointed:
            how = (
                f"replaced, not saved; checkpoint {self.session_name} holds the config before "
                "it (no timer on the device: meetme restores it on any failure)"
            )
        else:
            how = "committed (no confirm timer on driver)"
        step("commit", "ok", how)
        check = self._post_checks(target, driver, step)
        if not check.ok:
            self.stop.set()
            result.detail = f"post-check: {check.detail}"
            if checkpointed:
                self._restore_checkpoint(item, "post-check")
            else:
                self._undo(item, started, "post-check")
            return
        if confirm or checkpointed:
            try:
                driver.confirm_commit()
            except Exception as exc:
                self.stop.set()
                step("confirm", "failed", self._describe(exc))
                result.detail = f"confirm: {self._describe(exc)}"
                if checkpointed:
                    self._restore_checkpoint(item, "confirm")
                    return
                self._close(driver)
                self._await_timer(item, started, "confirm")
                return
            saved = "commit confirmed and saved"
            if checkpointed:
                saved = f"saved (copy running-config startup-config); {self.session_name} removed"
            step("confirm", "ok", saved)
        result.status = "committed"
        self._close(driver)

    def _post_checks(self, target: Target, driver: Any, step: Callable[..., Any]) -> CheckResult:
        """The post-checks from the device model, in order, each journaled with its evidence;
        the first that fails ends them. A check the driver cannot run is `skipped`."""
        settings = self.settings
        underlay = settings.check_neighbors == "underlay"
        checks: list[tuple[str, Callable[..., CheckResult | None], Any, str]] = [
            ("post-check", check_bgp, expected_neighbors(target.model, underlay), ""),
            (
                "post-check-links",
                check_links,
                expected_links(target.model),
                "the driver has no interface/LLDP getters",
            ),
            (
                "post-check-ports",
                check_ports,
                expected_ports(target.model),
                "the driver has no interface getter",
            ),
            (
                "post-check-evpn",
                check_overlay,
                expected_overlay(target.model, target.remote_vteps),
                "the driver cannot read the remote VTEPs",
            ),
        ]
        passed = CheckResult(True, "nothing to check", 0)
        for name, check, expected, cannot in checks:
            found = check(
                driver, expected, settings.check_timeout, settings.check_interval, sleep=self.sleep
            )
            if found is None:
                step(name, "skipped", cannot)
                continue
            extra = {"evidence": found.evidence} if found.evidence else {}
            step(name, "ok" if found.ok else "failed", found.detail, polls=found.polls, **extra)
            if not found.ok:
                return found
            passed = found
        return passed

    def _undo(self, item: _Live, started: float, phase: str) -> None:
        """Roll back a commit (or find that it never took effect)."""
        target, result, driver = item.target, item.result, item.driver
        step = self._step(target)
        confirm = item.timed
        try:
            if confirm and phase == "commit" and not driver.has_pending_commit():
                step("rollback", "ok", "nothing to roll back: the commit did not take effect")
                self._quietly(driver.discard_config)
                self._close(driver)
                result.status = "failed"
                result.detail = result.detail or "commit refused; nothing changed"
                return
            if getattr(driver, "reverts_itself", False):  # NX-OS commit-timeout: no way to
                self._quietly(driver.discard_config)  # revert sooner was found documented
                self._close(driver)
                self._await_timer(
                    item,
                    started,
                    phase,
                    f"{phase} failed; meetme sends no `configure replace commit`, so",
                )
                return
            driver.rollback()
        except Exception as exc:
            step("rollback", "failed", self._describe(exc))
            self._close(driver)
            if confirm:
                self._await_timer(item, started, phase)
            else:
                result.status = UNKNOWN
                result.detail = "rollback failed: restore the device by hand"
            return
        how = "pending commit aborted" if confirm else "previous configuration restored"
        step("rollback", "ok", how)
        result.status = "rolled-back"
        self._close(driver)

    def _await_timer(self, item: _Live, started: float, phase: str, why: str = "") -> None:
        """The device is out of reach after a timed commit (or, `why`, is left to its timer):
        let its timer act, then verify."""
        target, result = item.target, item.result
        step = self._step(target)
        revert_at = started + self.settings.confirm_timer
        wall = datetime.now(UTC) + timedelta(seconds=revert_at - time.monotonic())
        wait = max(0.0, revert_at + self.settings.verify_grace - time.monotonic())
        step(
            "await-timer",
            "waiting",
            f"{why or f'device out of reach after {phase};'} its confirm timer reverts the "
            f"change at {wall.strftime('%H:%M:%SZ')}; verifying in {wait:.0f} s",
        )
        self.sleep(wait)
        try:
            driver = self._open(target)
            try:
                pending = bool(driver.has_pending_commit())
                driver.load_replace_candidate(config=item.resolved)
                diff = self._diff_of(driver)
            finally:
                self._quietly(driver.discard_config)
                self._close(driver)
        except Exception as exc:
            step("verify", "failed", f"still out of reach: {self._describe(exc)}; check by hand")
            result.status = UNKNOWN
            result.detail = "unreachable after its confirm timer; check the device by hand"
            return
        if pending:
            step("verify", "failed", "a commit is still pending confirmation; check by hand")
            result.status = UNKNOWN
        elif diff:
            same = "exactly as before the push" if diff == result.diff else "not as before"
            step("verify", "ok", f"reverted by its confirm timer; config {same}")
            result.status = "reverted"
            result.detail = result.detail or f"{phase} lost; reverted by the device's timer"
        elif phase == "confirm":
            step("verify", "ok", "the confirm reached the device: the change is in place")
            result.status = "committed"
        else:
            step("verify", "failed", "the change is in place although never confirmed")
            result.status = UNKNOWN

    # ---- what is pending on a device before meetme touches it -------------------------------

    def _identity(self, target: Target, driver: Any) -> bool:
        """Before anything is inspected or loaded: the device answering at the inventory's
        address names itself, over the driver's own API, as the inventory's device (or as
        the model's hostname). Swapped addresses, or an alias of another device's address,
        would otherwise replace that other device's config with this one's."""
        expected = sorted({target.name, target.model.hostname})
        earlier = self.previous.get(target.name)  # kept for the next run (journal.py)
        extra = {"interrupted": earlier} if earlier else {}
        try:
            answered = str(device_hostname(target.entry.driver, driver) or "").strip()
        except Exception as exc:
            detail = f"cannot read the device's hostname: {self._describe(exc)}"
            return self._stopped(target, "identity", detail, **extra)
        first = target.entry.answers_as  # a new box, not yet renamed by meetme
        if _names_itself(answered, expected):
            self._step(target)("identity", "ok", f"the device answers as {answered}")
            return True
        if first is not None and _names_itself(answered, [first]):
            self._step(target)(
                "identity",
                "ok",
                f"the device answers as {answered}, the inventory's answers_as (a freshly "
                f"provisioned box): this push renames it {target.model.hostname}",
                answers_as=first,
            )
            return True
        if first is not None:
            expected.append(f"{first} (answers_as)")
        shown = " or ".join(expected)
        return self._stopped(
            target,
            "identity",
            f"the device at {self.results[target.name].host} answers as "
            f"{answered or '(no hostname)'!r}, not as {shown}: the inventory's address may be "
            "another device's (swapped or aliased); nothing was loaded",
            **extra,
        )

    def _clean_leftovers(self, target: Target, driver: Any) -> bool:
        """NX-OS: a push killed before its end leaves its candidate, secrets resolved, in
        bootflash:meetme-<run>.cfg (deploy/nxos_checkpoint.py); delete every such file of
        another run (meetme's own naming) before this push goes on. Other files are left.
        A failure stops the device, the journal's memory of an interrupted push kept."""
        earlier = self.previous.get(target.name)
        extra = {"interrupted": earlier} if earlier else {}

        def failed(detail: str) -> bool:
            return self._stopped(target, "cleanup", detail, **extra)

        try:
            found = sorted(driver.leftover_candidates())
        except Exception as exc:
            return failed(f"cannot list bootflash: for leftovers: {self._describe(exc)}")
        for name in found:
            try:
                driver.delete_file(name)
            except Exception as exc:
                return failed(f"delete bootflash:{name}: {self._describe(exc)}")
            self._step(target)(
                "cleanup",
                "ok",
                f"deleted bootflash:{name}, the candidate file an earlier meetme push left "
                "(it holds that push's secrets in clear)",
            )
        return True

    def _sessions(self, driver: Any) -> dict[str, dict[str, Any]]:
        """EOS config sessions that hold the lock or a commit awaiting its confirm."""
        reply = driver.device.run_commands(["show configuration sessions detail"])
        sessions = reply[0].get("sessions") or {}
        return {
            str(name): dict(data)
            for name, data in sessions.items()
            if isinstance(data, dict) and data.get("state") in _BLOCKING_STATES
        }

    def _inspect(self, target: Target, driver: Any) -> bool:
        """Look for pending sessions and unconfirmed commits before loading; report each by
        name. With clean_own_sessions, abort the ones meetme opened (named meetme-<run>):
        an unconfirmed commit of an interrupted push is reverted at once. Anything else
        stops this device: it is someone's work in progress, or a commit whose fate only its
        owner knows."""
        step, result = self._step(target), self.results[target.name]
        earlier = self.previous.get(target.name)
        try:
            pending = self._sessions(driver)
        except Exception as exc:
            return self._stopped(
                target, "inspect", f"cannot list config sessions: {self._describe(exc)}"
            )
        if not pending:
            detail = "no pending config session, no unconfirmed commit"
            if earlier:
                detail += (
                    f"; the journal says {earlier}, but nothing is pending on the device "
                    "any more (confirmed or reverted by its timer): the diff shows where it stands"
                )
            step("inspect", "ok", detail)
            return True
        ours = {n for n in pending if n.startswith(OWN_SESSION_PREFIX)}
        described = "; ".join(_describe_session(n, pending[n], n in ours) for n in sorted(pending))
        if self.clean_own_sessions and ours == set(pending):
            for name in sorted(ours):
                try:
                    driver.device.run_commands([f"configure session {name} abort"])
                except Exception as exc:
                    return self._stopped(target, "cleanup", f"abort {name}: {self._describe(exc)}")
                how = (
                    "its unconfirmed commit is reverted"
                    if pending[name].get("state") == "pendingCommitTimer"
                    else "its uncommitted changes are dropped"
                )
                step("cleanup", "ok", f"aborted meetme's own session {name}: {how}")
            return True
        detail = f"found before any change: {described}"
        if earlier:
            detail += f"; the journal says {earlier}"
        if ours and ours == set(pending):
            detail += "; --clean-own-sessions aborts meetme's own sessions"
        elif pending.keys() - ours:
            detail += "; sessions not opened by meetme are left to their owner"
        step("inspect", "failed", detail)
        result.status, result.detail = "failed", f"inspect: {detail}"
        return False

    def _restore_checkpoint(self, item: _Live, phase: str) -> None:
        """meetme's watchdog where the device has no timer (NX-OS): restore the checkpoint
        taken before the replace, retrying while the device is out of reach, for at most
        confirm_timer seconds. A replace the device refused (atomic) changed nothing."""
        target, result, driver = item.target, item.result, item.driver
        step = self._step(target)
        try:
            if phase == "commit" and not driver.has_pending_commit():
                self._quietly(driver.forget)  # our checkpoint and candidate file; no save
                step("rollback", "ok", "nothing to roll back: the device refused the replace")
                result.status = "failed"
                return
        except Exception:
            pass  # the replace's fate is unknown: restore the checkpoint to be sure
        name = self.session_name
        deadline = time.monotonic() + self.settings.confirm_timer
        attempts, error = 0, ""
        while True:
            attempts += 1
            try:
                driver.rollback()
                break
            except Exception as exc:
                error = self._describe(exc)
            if time.monotonic() >= deadline:
                step(
                    "rollback",
                    "failed",
                    f"{phase} cut off and checkpoint {name} not restored after {attempts} "
                    f"attempts ({error}); the device may run the new config, unsaved: "
                    f"`rollback running-config checkpoint {name}` restores it, or "
                    "`meetme push --clean-own-sessions`",
                )
                result.status = UNKNOWN
                result.detail = f"{phase} failed and the checkpoint could not be restored"
                return
            self.sleep(0.5)
        again = f" after {attempts} attempts" if attempts > 1 else ""
        step(
            "rollback",
            "ok",
            f"restored checkpoint {name} (the config before this push) and saved{again}",
        )
        result.status = "rolled-back"

    def _switch_timer(self, driver: Any, seconds: int) -> bool:
        """NX-OS: whether the switch takes this push's replace with its own commit-timeout
        (9.3(1) and later, 30-3600 s); if it cannot tell, the checkpoint way is taken."""
        try:
            return bool(driver.commit_timeout_fits(seconds))
        except Exception:
            return False

    def _inspect_journal(self, target: Target, driver: Any) -> bool:
        """Devices without a device-side timer (NX-OS): nothing on the device says a change is
        unconfirmed, so the journal does. An interrupted push left its replace in place,
        unsaved and unchecked, with its checkpoint; --clean-own-sessions restores it. A
        switch that takes the commit-timeout reverts an interrupted push by itself: as NVUE,
        the device waits until that timer has surely run out."""
        step, result = self._step(target), self.results[target.name]
        earlier = self.previous.get(target.name)
        if not earlier:
            step("inspect", "ok", "no interrupted meetme push of this device in the journals")
            return True
        if self._switch_timer(driver, self.settings.confirm_timer):
            return self._inspect_timer(target)
        found = re.search(r"run (\w+) stopped", earlier)
        checkpoint = f"{OWN_SESSION_PREFIX}{found.group(1) if found else 'unknown'}"
        if self.clean_own_sessions and found:
            ours = driver.checkpoint_name
            driver.checkpoint_name = checkpoint
            try:
                driver.rollback()
            except Exception as exc:
                return self._stopped(
                    target, "cleanup", f"restore {checkpoint}: {self._describe(exc)}"
                )
            finally:
                driver.checkpoint_name = ours
            step(
                "cleanup",
                "ok",
                f"restored meetme's own checkpoint {checkpoint}, the config before the "
                "interrupted push, and saved",
            )
            return True
        detail = (
            f"the journal says {earlier}; the device has no confirm timer, so that change may "
            f"still be in place, unsaved and unchecked; checkpoint {checkpoint} holds the "
            "config before it: --clean-own-sessions restores it"
        )
        step("inspect", "failed", detail, interrupted=earlier)  # the next run reads it
        result.status, result.detail = "failed", f"inspect: {detail}"
        return False

    def _inspect_confirm(self, target: Target, driver: Any) -> bool:
        """NVUE: ask the switch whether an apply awaits its confirm (anyone's: NVUE does not
        say whose) and name it; nothing is cleaned up, its owner confirms or the switch's
        timer reverts it. A switch that does not answer the question leaves it to the
        journals (_inspect_timer)."""
        step, result = self._step(target), self.results[target.name]
        earlier = self.previous.get(target.name)
        try:
            status = driver.confirm_status()
        except Exception as exc:
            if type(exc).__name__ != "NvueError":  # the switch is out of reach: stop here
                return self._stopped(
                    target, "inspect", f"cannot read the confirm status: {self._describe(exc)}"
                )
            return self._inspect_timer(target)  # refused: this release lacks it
        if status is None:
            detail = "no apply awaiting its confirm (nv config apply --confirm-status)"
            if earlier:
                detail += (
                    f"; the journal says {earlier}, but nothing awaits a confirm on the switch "
                    "any more (confirmed, or reverted by its timer): the diff shows where it stands"
                )
            step("inspect", "ok", detail)
            return True
        detail = (
            f"found before any change: an apply awaiting its confirm ({status}); the switch "
            "reverts it when that time runs out unless its owner confirms it: push again after "
            "that"
        )
        extra: dict[str, Any] = {}
        if earlier:
            detail += f"; the journal says {earlier}"
            extra["interrupted"] = earlier  # the next run reads it
        step("inspect", "failed", detail, **extra)
        result.status, result.detail = "failed", f"inspect: {detail}"
        return False

    def _inspect_timer(self, target: Target) -> bool:
        """NVUE: an interrupted push's apply reverts by the switch's confirm timer. Until that
        timer has surely run out, the diff of a retry would be empty and say nothing true:
        stop the device; afterwards, go on (the diff shows where it stands)."""
        step, result = self._step(target), self.results[target.name]
        earlier = self.previous.get(target.name)
        if not earlier:
            step("inspect", "ok", "no interrupted meetme push of this device in the journals")
            return True
        found = re.search(r" at (\S+) with", earlier)
        try:
            when = datetime.fromisoformat(found.group(1).replace("Z", "+00:00")) if found else None
        except ValueError:
            when = None
        wait = self.settings.confirm_timer + self.settings.verify_grace
        if when is not None and (datetime.now(UTC) - when).total_seconds() > wait:
            step(
                "inspect",
                "ok",
                f"the journal says {earlier}; its confirm timer ({self.settings.confirm_timer} "
                "s) has run out since, so the switch reverted it: the diff shows where it stands",
            )
            return True
        detail = (
            f"the journal says {earlier}; the switch reverts that apply when its confirm timer "
            f"runs out ({self.settings.confirm_timer} s after it): push again after that"
        )
        step("inspect", "failed", detail, interrupted=earlier)
        result.status, result.detail = "failed", f"inspect: {detail}"
        return False

    def _inspect_lock(self, target: Target, driver: Any) -> bool:
        """Adapters holding a datastore lock for the whole push (IOS-XR NETCONF): take it now,
        or name what holds it. Nothing is cleaned up: only its own session can release a
        lock, and ending a confirmed commit's session reverts it (the router does that)."""
        step, result = self._step(target), self.results[target.name]
        earlier = self.previous.get(target.name)
        try:
            found = list(driver.pending())
        except Exception as exc:
            return self._stopped(
                target, "inspect", f"cannot take the configuration lock: {self._describe(exc)}"
            )
        if not found:
            detail = "configuration lock taken: no other session holds it"
            if earlier:
                detail += (
                    f"; the journal says {earlier}, and nothing holds the router any more "
                    "(its confirm timer or the end of that session reverted it): the diff "
                    "shows where it stands"
                )
            step("inspect", "ok", detail)
            return True
        detail = "found before any change: " + "; ".join(found)
        if earlier:
            detail += f"; the journal says {earlier}"
        step("inspect", "failed", detail)
        result.status, result.detail = "failed", f"inspect: {detail}"
        return False

    def _clean_after_lost_load(self, target: Target, driver: Any) -> None:
        """After a load that timed out: watch for our own session for a while (the device may
        still be working through the load) and abort it once it appears."""
        step = self._step(target)
        window = 3 * self.settings.connect_timeout
        deadline = time.monotonic() + window
        name = self.session_name
        seen_error = ""
        while True:
            try:
                pending = self._sessions(driver)
                if name in pending:
                    driver.device.run_commands([f"configure session {name} abort"])
                    driver.config_session = None
                    step("cleanup", "ok", f"aborted our session {name}, left by the lost load")
                    return
                seen_error = ""
            except Exception as exc:
                seen_error = self._describe(exc)
            if time.monotonic() >= deadline:
                break
            self.sleep(min(0.5, max(0.0, deadline - time.monotonic())))
        if seen_error:
            step("cleanup", "failed", f"cannot reach the device to abort {name}: {seen_error}")
        else:
            step(
                "cleanup",
                "ok",
                f"no session {name} appeared within {window:g} s; should it appear later, "
                "`meetme push --clean-own-sessions` aborts it",
            )

    # ---- helpers -----------------------------------------------------------------------------

    def _resolve(self, item: _Live) -> str | None:
        """Substitute the secrets of the rendered file, the only text a push resolves, or say
        why not (before any connection)."""
        text, platform = item.target.text, item.target.model.platform
        misplaced = misplaced_placeholders(text, platform)
        if misplaced:
            spots = ", ".join(f"line {m.line} ({m.name})" for m in misplaced)
            return f"refused: a secret placeholder stands where no secret belongs: {spots}"
        missing = sorted(placeholders_in(text) - set(self.secrets.values))
        if missing:
            return f"refused: secret(s) not resolved: {', '.join(missing)}"
        item.resolved = self.secrets.substitute(text, VALUE_ESCAPES.get(platform))
        return None

    def _open(self, target: Target) -> Any:
        username = target.credentials.username  # written out (inventory.Credentials)
        password = self.secrets.get(target.credentials.password)
        driver = self.factory(target, username, password, self.settings.connect_timeout)
        if hasattr(driver, "checkpoint_name"):  # NX-OS: our checkpoint, meetme-<run id>
            driver.checkpoint_name = self.session_name
        return driver

    def _discard(self, item: _Live, why: str) -> None:
        step = self._step(item.target)
        try:
            item.driver.discard_config()
            step("discard", "ok", why)
        except Exception as exc:
            step("discard", "failed", f"{why}; {self._describe(exc)}")
        self._close(item.driver)
        if item.result.status == "pending":
            item.result.status = "discarded"
            item.result.detail = why

    def _skip(self, target: Target, why: str) -> None:
        self._step(target)("skip", "skipped", why)
        result = self.results[target.name]
        result.status, result.detail = "skipped", why

    def _stopped(self, target: Target, name: str, detail: str, **extra: Any) -> bool:
        """Step `name` failed and stops this device: journalled, and the result says where."""
        self._step(target)(name, "failed", detail, **extra)
        result = self.results[target.name]
        result.status = "failed"
        result.detail = f"{name}: {detail}"
        return False

    def _diff_of(self, driver: Any) -> str:
        """The device's diff as printed and journaled: this run's secrets masked, and any
        other value at a secret's place (the key the device runs now) hidden."""
        return hide_values(self.secrets.mask(str(driver.compare_config() or "").strip("\n")))

    def _step(self, target: Target) -> Callable[..., Any]:
        result = self.results[target.name]

        def step(name: str, status: str, detail: str = "", **extra: Any) -> None:
            if result.diff_sha256 is not None:  # every step after the diff names the change
                extra.setdefault("diff_sha256", result.diff_sha256)
            self.journal.record(
                name, status, device=target.name, wave=target.entry.wave, detail=detail, **extra
            )

        return step

    def _record_run(self, step: str, status: str) -> None:
        if step == "run-start":
            waves: dict[str, list[str]] = {}
            for t in self.targets:
                waves.setdefault(str(t.entry.wave), []).append(t.name)
            self.journal.record(
                step, status, waves=waves, settings=self.settings.model_dump(), **self.run_info
            )
            return
        counts: dict[str, int] = {}
        for result in self.results.values():
            counts[result.status] = counts.get(result.status, 0) + 1
        self.journal.record(step, status, outcome=counts)

    def _outcome(self) -> str:
        if self.interrupted.is_set():  # the counts say how each device ended
            return "interrupted"
        statuses = {r.status for r in self.results.values()}
        if UNKNOWN in statuses:
            return UNKNOWN
        return "ok" if statuses <= OK_STATUSES else "failed"

    def _ordered(self) -> list[DeviceResult]:
        for result in self.results.values():  # details quote device errors: mask them
            result.detail = self.secrets.mask(result.detail)
        return [self.results[t.name] for t in self.targets]

    def _parallel(self, items: Iterable[T], work: Callable[[T], R]) -> list[R]:
        batch = list(items)
        if not batch:
            return []
        workers = min(self.settings.concurrency, len(batch))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="meetme") as pool:
            futures = [pool.submit(work, item) for item in batch]
            pending = set(futures)
            while pending:  # never one unbounded wait: CPython runs a signal handler (Ctrl-C)
                # in this thread only, between bytecodes, so a short timeout lets it run at once
                pending = wait(pending, timeout=0.2).not_done
            return [future.result() for future in futures]

    def _describe(self, exc: BaseException) -> str:
        return describe(exc, self.secrets.mask)

    @classmethod
    def _close(cls, driver: Any) -> None:
        """Close the driver, then forget its EOS session name: napalm's __del__ closes a
        driver again whenever the garbage collector reaches it, in whichever thread, and
        would send `configure session <name> abort` to the device at that random moment."""
        cls._quietly(driver.close)
        if getattr(driver, "config_session", None) is not None:
            driver.config_session = None

    @staticmethod
    def _quietly(action: Callable[[], Any]) -> None:
        # closing a dead session must not hide the real outcome
        with contextlib.suppress(Exception):
            action()


def device_hostname(driver_name: str, driver: Any) -> str:
    """The hostname the device reports over the driver's own API.

    - meetme's adapters (nxos, iosxr_netconf, nvue) say it themselves: reported_hostname();
    - EOS over eAPI: `show hostname` answers {"hostname", "fqdn"} (NAPALM 5.2's EOSDriver.
      get_facts reads the same command and the same two keys, napalm/eos/eos.py);
    - any other NAPALM driver (iosxr, nxos_ssh): get_facts()["hostname"], NAPALM's
      documented facts (napalm.base.base.NetworkDriver.get_facts)."""
    if hasattr(driver, "reported_hostname"):
        return str(driver.reported_hostname())
    if driver_name == "eos":
        reply = driver.device.run_commands(["show hostname"])
        return str(reply[0]["hostname"])
    return str(driver.get_facts()["hostname"])


def _address(target: Target) -> str:
    port = f":{target.entry.port}" if target.entry.port else ""
    return f"{target.entry.host}{port}"


def _describe_session(name: str, data: dict[str, Any], ours: bool) -> str:
    owner = "opened by meetme" if ours else "not opened by meetme"
    if data.get("state") == "pendingCommitTimer":
        what = "a commit awaiting its confirm (pendingCommitTimer): the device reverts it "
        what += "when its timer runs out unless someone confirms it"
    else:
        what = "an open, uncommitted config session holding the configuration lock"
    return f"{name}, {owner}: {what}"


def describe(exc: BaseException, mask: Callable[[str], str] = str) -> str:
    """One line, at most 500 characters. `mask` runs first: cutting or folding the spaces of
    the text before would leave a half or a respaced secret value that no mask matches."""
    if isinstance(exc, UnicodeError):
        # its message quotes the character and where it stands in the value: of a login
        # or a key, a piece of the secret
        return f"{type(exc).__name__}: a value holds a character the device's protocol cannot carry"
    text = " ".join(mask(str(exc)).split()) or "no message"
    return f"{type(exc).__name__}: {text}"[:500]
