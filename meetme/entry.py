"""The `meetme` console script and `python -m meetme`: the command line, started so that ^C
while it is still loading (importing the CLI takes a few tenths of a second) ends as quietly,
with the same status, as ^C during a command does."""

from __future__ import annotations

import os
import signal
import sys

from meetme.core.gc_tuning import tune_gc

# the status of a process ended by SIGINT, as the shell reports it
EXIT_INTERRUPTED = 128 + signal.SIGINT


def script() -> None:
    _no_closed_streams()
    # before the CLI's imports: they build tens of thousands of objects that the default
    # thresholds would scan again and again (core/gc_tuning.py)
    tune_gc()
    try:
        from meetme.cli import script as run

        # ^C while typer still builds the commands comes before click's own handler
        run()
    except KeyboardInterrupt:
        sys.exit(EXIT_INTERRUPTED)


def _no_closed_streams() -> None:
    """A stream the shell closed (`meetme lint >&-`, `2>&-`) is None in Python: what would go
    there goes nowhere instead, and the run still ends with the status it earned (a traceback
    and exit 1 otherwise, whatever the lint found)."""
    if sys.stdout is None:
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - for the process
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
