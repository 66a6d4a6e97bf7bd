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
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from meetme.deploy.checks import check_bgp, expected_neighbors
from meetme.deploy.inventory import COMMIT_CONFIRM_DRIVERS, Settings
from meetme.deploy.journal import Journal, diff_hash
from meetme.deploy.secret_positions import misplaced_placeholders
from meetme.deploy.secret_store import SecretStore, placeholders_in
from meetme.deploy.targets import Target

DriverFactory = Callable[[Target, str, str, int], Any]
T = TypeVar("T")
R = TypeVar("R")

# Outcomes. Plan: changes / no-changes / failed. Push: the rest.
OK_STATUSES = frozenset({"changes", "no-changes", "not-supported", "committed", "unchanged"})
UNKNOWN = "unknown"  # meetme could not establish the device's state: look at it by hand


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


def preload_drivers(names: Iterable[str]) -> None:
    """Import each NAPALM driver once, in this thread, before worker threads start: CPython 3.11
    compiling modules in several threads at once can fail ('AST constructor recursion depth
    mismatch'), and device threads would otherwise each import their driver."""
    from napalm import get_network_driver

    for name in sorted(set(names)):
        get_network_driver(name)


def napalm_driver(target: Target, username: str, password: str, timeout: int) -> Any:
    """Open a NAPALM driver (imported here: `meetme lint` must not pay for napalm)."""
    from napalm import get_network_driver

    optional: dict[str, Any] = {}
    if target.entry.port is not None:
        optional["port"] = target.entry.port
    if target.entry.transport is not None:
        optional["transport"] = target.entry.transport
    driver = get_network_driver(target.entry.driver)(
        hostname=target.entry.host,
        username=username,
        password=password,
        timeout=timeout,
        optional_args=optional,
    )
    driver.open()
    return driver


def diff_counts(diff: str) -> tuple[int, int]:
    lines = diff.splitlines()
    added = sum(1 for x in lines if x.startswith("+") and not x.startswith("+++"))
    removed = sum(1 for x in lines if x.startswith("-") and not x.startswith("---"))
    return added, removed


class Engine:
    def __init__(
        self,
        targets: list[Target],
        settings: Settings,
        secrets: SecretStore,
        journal: Journal,
        driver_factory: DriverFactory = napalm_driver,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.targets = sorted(targets, key=lambda t: (t.entry.wave, t.name))
        self.settings = settings
        self.secrets = secrets
        self.journal = journal
        self.factory = driver_factory
        if driver_factory is napalm_driver:
            preload_drivers(t.entry.driver for t in self.targets if t.supported)
        self.sleep = sleep
        self.stop = threading.Event()
        self.results = {
            t.name: DeviceResult(t.name, t.entry.wave, t.entry.driver, _address(t))
            for t in self.targets
        }

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
                for target in members:
                    self._skip(target, "an earlier wave failed; this wave was not started")
                continue
            live = self._parallel(members, self._prepare)
            failed = [x for x in live if x.driver is None]
            if failed:
                self.stop.set()
                culprit = ", ".join(x.target.name for x in failed)
                for item in live:
                    if item.driver is not None:
                        self._discard(item, f"wave {wave} aborted before any commit: {culprit}")
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
        try:
            driver.load_replace_candidate(config=item.resolved)
        except Exception as exc:
            step("load", "failed", self._describe(exc))
            result.status, result.detail = "failed", f"load: {self._describe(exc)}"
            self._quietly(driver.discard_config)
            self._quietly(driver.close)
            return item
        step("load", "ok", f"replace candidate from {target.rendered.name}")
        try:
            diff = self.secrets.mask(str(driver.compare_config() or "").strip("\n"))
        except Exception as exc:
            step("diff", "failed", self._describe(exc))
            result.status, result.detail = "failed", f"diff: {self._describe(exc)}"
            self._quietly(driver.discard_config)
            self._quietly(driver.close)
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
            self._discard(item, "not started: another device of the wave failed")
            result.status = "skipped"
            return
        confirm = target.entry.driver in COMMIT_CONFIRM_DRIVERS
        timer = self.settings.confirm_timer
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
            else:
                # A rollback here could restore an older commit than ours: leave it to a person.
                result.status = UNKNOWN
                result.detail += "; state unknown: compare with `meetme plan`"
                self._quietly(driver.close)
            return
        step(
            "commit",
            "ok",
            f"confirm timer {timer} s" if confirm else "committed (no confirm timer on driver)",
        )
        check = check_bgp(
            driver,
            expected_neighbors(target.model, self.settings.check_neighbors == "underlay"),
            self.settings.check_timeout,
            self.settings.check_interval,
            sleep=self.sleep,
        )
        step("post-check", "ok" if check.ok else "failed", check.detail, polls=check.polls)
        if not check.ok:
            self.stop.set()
            result.detail = f"post-check: {check.detail}"
            self._undo(item, started, "post-check")
            return
        if confirm:
            try:
                driver.confirm_commit()
            except Exception as exc:
                self.stop.set()
                step("confirm", "failed", self._describe(exc))
                result.detail = f"confirm: {self._describe(exc)}"
                self._quietly(driver.close)
                self._await_timer(item, started, "confirm")
                return
            step("confirm", "ok", "commit confirmed and saved")
        result.status = "committed"
        self._quietly(driver.close)

    def _undo(self, item: _Live, started: float, phase: str) -> None:
        """Roll back a commit (or find that it never took effect)."""
        target, result, driver = item.target, item.result, item.driver
        step = self._step(target)
        confirm = target.entry.driver in COMMIT_CONFIRM_DRIVERS
        try:
            if confirm and phase == "commit" and not driver.has_pending_commit():
                step("rollback", "ok", "nothing to roll back: the commit did not take effect")
                self._quietly(driver.discard_config)
                self._quietly(driver.close)
                result.status = "failed"
                result.detail = result.detail or "commit refused; nothing changed"
                return
            driver.rollback()
        except Exception as exc:
            step("rollback", "failed", self._describe(exc))
            self._quietly(driver.close)
            if confirm:
                self._await_timer(item, started, phase)
            else:
                result.status = UNKNOWN
                result.detail = "rollback failed: restore the device by hand"
            return
        how = "pending commit aborted" if confirm else "previous configuration restored"
        step("rollback", "ok", how)
        result.status = "rolled-back"
        self._quietly(driver.close)

    def _await_timer(self, item: _Live, started: float, phase: str) -> None:
        """The device is out of reach after a timed commit: let its timer act, then verify."""
        target, result = item.target, item.result
        step = self._step(target)
        revert_at = started + self.settings.confirm_timer
        wall = datetime.now(UTC) + timedelta(seconds=revert_at - time.monotonic())
        wait = max(0.0, revert_at + self.settings.verify_grace - time.monotonic())
        step(
            "await-timer",
            "waiting",
            f"device out of reach after {phase}; its confirm timer reverts the change at "
            f"{wall.strftime('%H:%M:%SZ')}; verifying in {wait:.0f} s",
        )
        self.sleep(wait)
        try:
            driver = self._open(target)
            try:
                pending = bool(driver.has_pending_commit())
                driver.load_replace_candidate(config=item.resolved)
                diff = self.secrets.mask(str(driver.compare_config() or "").strip("\n"))
            finally:
                self._quietly(driver.discard_config)
                self._quietly(driver.close)
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
        item.resolved = self.secrets.substitute(text)
        return None

    def _open(self, target: Target) -> Any:
        username = target.credentials.username
        if username.startswith("secret:"):
            username = self.secrets.get(username)
        password = self.secrets.get(target.credentials.password)
        return self.factory(target, username, password, self.settings.connect_timeout)

    def _discard(self, item: _Live, why: str) -> None:
        step = self._step(item.target)
        try:
            item.driver.discard_config()
            step("discard", "ok", why)
        except Exception as exc:
            step("discard", "failed", f"{why}; {self._describe(exc)}")
        self._quietly(item.driver.close)
        if item.result.status == "pending":
            item.result.status = "discarded"
            item.result.detail = why

    def _skip(self, target: Target, why: str) -> None:
        self._step(target)("skip", "skipped", why)
        result = self.results[target.name]
        result.status, result.detail = "skipped", why

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
            self.journal.record(step, status, waves=waves, settings=self.settings.model_dump())
            return
        counts: dict[str, int] = {}
        for result in self.results.values():
            counts[result.status] = counts.get(result.status, 0) + 1
        self.journal.record(step, status, outcome=counts)

    def _outcome(self) -> str:
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
            return list(pool.map(work, batch))

    def _describe(self, exc: BaseException) -> str:
        return describe(exc, self.secrets.mask)

    @staticmethod
    def _quietly(action: Callable[[], Any]) -> None:
        # closing a dead session must not hide the real outcome
        with contextlib.suppress(Exception):
            action()


def _address(target: Target) -> str:
    port = f":{target.entry.port}" if target.entry.port else ""
    return f"{target.entry.host}{port}"


def describe(exc: BaseException, mask: Callable[[str], str] = str) -> str:
    """One line, at most 500 characters. `mask` runs first: cutting or folding the spaces of
    the text before would leave a half or a respaced secret value that no mask matches."""
    text = " ".join(mask(str(exc)).split()) or "no message"
    return f"{type(exc).__name__}: {text}"[:500]
