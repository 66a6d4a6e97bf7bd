"""One push per stage at a time: an advisory lock file beside the journals.

`fcntl.flock` on `journal/.push-<stage>.lock`: the kernel releases it when the holder exits,
however it exits (a killed push leaves no stale lock to clear by hand). The file holds who
took it (user, host, pid, run, time) so that the second push can name the holder.
"""

from __future__ import annotations

import fcntl
import getpass
import json
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from meetme.deploy.journal import now_iso


class StageLocked(Exception):
    """Another push of the stage holds the lock; the message names it."""


def lock_path(repo: Path, stage: str) -> Path:
    return repo / "journal" / f".push-{stage}.lock"


@contextmanager
def stage_lock(repo: Path, stage: str, run: str) -> Iterator[Path]:
    path = lock_path(repo, stage)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StageLocked(_holder(path, stage)) from None
        holder = {
            "user": getpass.getuser(),
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "run": run,
            "since": now_iso(),
        }
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(holder) + "\n").encode(), 0)
        try:
            yield path
        finally:
            os.ftruncate(fd, 0)
    finally:
        os.close(fd)  # releases the lock


def _holder(path: Path, stage: str) -> str:
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        data = {}
    if not data:
        who = "another process (it has not written its name yet)"
    else:
        who = (
            f"run {data.get('run')} by {data.get('user')}@{data.get('host')} "
            f"(pid {data.get('pid')}) since {data.get('since')}"
        )
    return f"another push of stage {stage} is running: {who}; lock file {path}"
