"""The push journal: one JSON line per device step, flushed as it happens.

An engineer reading it after a bad night sees exactly which device did what, when, with which
diff (by hash, and masked text), and how it ended. Every string passes through the secret
mask before it is written, and the diff hash is taken over the masked diff: a hash of the
real text would let anyone holding the journal test guesses of a short secret offline.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from meetme.deploy.secret_store import SecretStore

Record = dict[str, Any]


_STRUCTURAL = frozenset({"ts", "run", "command", "stage", "wave", "device", "step", "status"})


def diff_hash(masked_diff: str) -> str:
    return "sha256:" + hashlib.sha256(masked_diff.encode("utf-8")).hexdigest()


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Journal:
    """Thread-safe JSON-lines writer; `listener` sees each record too (live progress)."""

    def __init__(
        self,
        path: Path | None,
        secrets: SecretStore,
        run: dict[str, Any],
        listener: Callable[[Record], None] | None = None,
    ) -> None:
        self.path = path
        self.secrets = secrets
        self.run = run  # fields every record carries: run id, command, stage
        self.listener = listener
        self.records: list[Record] = []
        self._lock = threading.Lock()
        self._file: IO[str] | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._file = path.open("a", encoding="utf-8")

    def record(
        self,
        step: str,
        status: str,
        *,
        device: str | None = None,
        wave: int | None = None,
        detail: str = "",
        **extra: Any,
    ) -> Record:
        entry: Record = {
            "ts": now_iso(),
            **self.run,
            "wave": wave,
            "device": device,
            "step": step,
            "status": status,
            "detail": detail,
            **extra,
        }
        # what says which device did what stays as it is: a secret can equal no device
        # name (deploy/targets.py), and a masked step or device would hide a record from
        # `interrupted_devices`
        entry = {k: v if k in _STRUCTURAL else self._masked(v) for k, v in entry.items()}
        line = json.dumps(entry, sort_keys=False)
        with self._lock:
            self.records.append(entry)
            if self._file is not None:
                self._file.write(line + "\n")
                self._file.flush()
                os.fsync(self._file.fileno())
        if self.listener is not None:
            self.listener(entry)
        return entry

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None

    def _masked(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.secrets.mask(value)
        if isinstance(value, dict):
            return {k: self._masked(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self._masked(v) for v in value]
        return value


# The last step of a device that leaves a commit in place without knowing its fate: the run
# ended (killed, lost its terminal) between the commit and its confirm or rollback.
_OPEN_ENDED = {("commit", "ok"), ("post-check", "ok"), ("post-check", "failed")}
_OPEN_ENDED_STEPS = {"await-timer", "post-check-links"}


def interrupted_devices(paths: list[Path], stage: str) -> dict[str, str]:
    """Device -> what an earlier push of `stage` left unfinished on it, read from journals:
    the device's last record is a commit (or its post-check) with no confirm, rollback or
    verify after it. A push that retries must not take a device's empty diff for `unchanged`
    while such a commit may still be waiting for its confirm timer."""
    last: dict[str, Record] = {}
    for path in paths:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError:
            continue
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue  # a line cut short by the kill
            if not isinstance(record, dict) or record.get("command") != "push":
                continue
            if record.get("stage") != stage or not record.get("device"):
                continue
            device = str(record["device"])
            if device not in last or str(record.get("ts", "")) >= str(last[device].get("ts", "")):
                last[device] = record
    found: dict[str, str] = {}
    for device, record in last.items():
        step, status = str(record.get("step")), str(record.get("status"))
        if record.get("interrupted"):  # a retry that stopped on it: still unresolved
            found[device] = str(record["interrupted"])
        elif (step, status) in _OPEN_ENDED or step in _OPEN_ENDED_STEPS:
            found[device] = (
                f"run {record.get('run')} stopped after {step} {status} at {record.get('ts')} "
                "with no confirm or rollback"
            )
    return found
