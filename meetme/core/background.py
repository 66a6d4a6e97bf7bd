"""One piece of work in a second process while this one does another: `meetme diff` renders the
base's side beside the working tree's.

The child is forked (Linux), so it inherits everything loaded and returns its value through a
pipe. The child never reports an error itself: whatever goes wrong there (an exception, a value
that does not pickle, a killed process) makes `result` run the work again here, so an error is
raised exactly as a serial run raises it, with its type, message and exit code. Where the
platform cannot fork, the work simply runs here when asked for.
"""

from __future__ import annotations

import ctypes
import gc
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection
from types import TracebackType
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class Background(Generic[T]):
    """`with Background(work) as job: ...; value = job.result()`"""

    def __init__(self, work: Callable[[], T]) -> None:
        self._work = work
        self._process: Any = None
        self._pipe: Connection | None = None

    def __enter__(self) -> Background[T]:
        # fork only on Linux: macOS can fork but its system libraries are not fork-safe
        if sys.platform == "linux" and "fork" in multiprocessing.get_all_start_methods():
            context = multiprocessing.get_context("fork")
            self._pipe, child_end = context.Pipe(duplex=False)
            self._process = context.Process(
                target=_child, args=(self._work, child_end, os.getpid())
            )
            self._process.start()
            child_end.close()
        return self

    def cancel(self) -> None:
        """The value will not be asked for: stop the child now."""
        self._stop()

    def result(self) -> T:
        """The work's value: the child's, or computed here when the child gave none."""
        if self._pipe is not None:
            try:
                done, value = self._pipe.recv()
            except (EOFError, OSError):  # the child died before answering
                done, value = False, None
            self._stop()
            if done:
                return value  # type: ignore[no-any-return]
        return self._work()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._stop()

    def _stop(self) -> None:
        if self._process is not None:
            if self._process.is_alive():
                self._process.kill()
            self._process.join()
            self._process = None
        if self._pipe is not None:
            self._pipe.close()
            self._pipe = None


PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def forked_child(parent: int) -> None:
    """What every process meetme forks does first. The collector never scans (nor, by touching
    them, copies the pages of) what it inherited. And it dies with its parent: a `meetme
    render` killed by a CI timeout must not leave workers rendering on, holding the caller's
    output pipe open (Linux prctl PR_SET_PDEATHSIG; elsewhere nothing forks). `parent`: the
    forking process's id, taken before the fork."""
    gc.freeze()
    if sys.platform != "linux":
        return
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the request took hold
        os._exit(1)


def _child(work: Callable[[], Any], pipe: Connection, parent: int) -> None:
    forked_child(parent)
    try:
        answer: tuple[bool, Any] = (True, work())
    except BaseException:  # reported by the parent's own run of the work, never from here
        answer = (False, None)
    try:
        pipe.send(answer)
    except Exception:  # a value that does not pickle: the parent computes it
        pipe.send((False, None))
    finally:
        pipe.close()
