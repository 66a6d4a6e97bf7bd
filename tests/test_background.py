"""meetme.core.background: the base side of `meetme diff` rendered in a second process."""

from __future__ import annotations

import os
import threading

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
