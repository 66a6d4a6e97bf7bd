"""meetme.core.background: the base side of `meetme diff` rendered in a second process."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from meetme.core.background import Background


def test_the_value_comes_from_a_second_process() -> None:
    with Background(os.getpid) as job:
        assert job.result() != os.getpid()


def test_an_error_in_the_child_is_raised_here_as_the_serial_run_raises_it() -> None:
    calls: list[int] = []  # the child's append is its own: only this process's shows here

    def work() -> int:
        calls.append(os.getpid())
        raise KeyError("no such device")

    with Background(work) as job, pytest.raises(KeyError, match="no such device"):
        job.result()
    assert calls == [os.getpid()]  # run again here, once


def test_a_value_that_does_not_pickle_is_computed_here() -> None:
    def work() -> tuple[int, object]:
        return os.getpid(), threading.Lock()  # a lock cannot cross a pipe

    with Background(work) as job:
        pid, _ = job.result()
    assert pid == os.getpid()


def test_a_cancelled_child_is_stopped() -> None:
    with Background(lambda: threading.Event().wait(60)) as job:
        process = job._process
        job.cancel()
    assert process is not None and not process.is_alive()


# A process that forks a Background child and a worker pool, prints their ids and waits: the
# test kills it as a CI timeout would, and the children must go with it.
ORPHANS = """
import os, sys, time
from concurrent.futures import ProcessPoolExecutor
import multiprocessing
from meetme.core.background import Background, forked_child

def nap():
    time.sleep(120)
    return os.getpid()

with ProcessPoolExecutor(
    max_workers=1,
    mp_context=multiprocessing.get_context("fork"),
    initializer=forked_child,
    initargs=(os.getpid(),),
) as pool:
    pool.submit(os.getpid).result()  # the worker exists
    worker = next(iter(pool._processes))
    with Background(nap) as job:
        print(worker, job._process.pid, flush=True)
        time.sleep(120)
"""


@pytest.mark.skipif(sys.platform != "linux", reason="forks only on Linux")
def test_forked_children_die_with_a_killed_parent() -> None:
    """`render --jobs N` killed mid-run (SIGKILL, SIGTERM from a CI timeout) left its workers
    rendering on as orphans, holding the caller's pipe open."""
    parent = subprocess.Popen([sys.executable, "-c", ORPHANS], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    children = [int(pid) for pid in parent.stdout.readline().split()]
    assert len(children) == 2 and all(_alive(pid) for pid in children)
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in children)


def _alive(pid: int) -> bool:
    """Running, not a zombie awaiting a reaper."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"
