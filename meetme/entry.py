"""The `meetme` console script and `python -m meetme`: the command line, started so that ^C
while it is still loading (importing the CLI takes a few tenths of a second) ends as quietly,
with the same status, as ^C during a command does."""

from __future__ import annotations

import signal
import sys

# the status of a process ended by SIGINT, as the shell reports it
EXIT_INTERRUPTED = 128 + signal.SIGINT


def script() -> None:
    try:
        from meetme.cli import script as run

        # ^C while typer still builds the commands comes before click's own handler
        run()
    except KeyboardInterrupt:
        sys.exit(EXIT_INTERRUPTED)
