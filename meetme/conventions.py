"""Command-line conventions shared by `meetme.cli`, `meetme.deploy_cli` and the twin's: which
repository a command works on when none is named, how wide its output is, and how it writes to
standard output.

Both follow git: a command run in any subfolder of the repository works on the whole of it,
and output piped into a file, a pager or a CI log is never folded at an arbitrary 80 columns.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

from rich.console import ConsoleDimensions

from meetme.outputs import PipeConsole

# Where a walk up from the working directory stops looking for intent/: the top of a git
# work tree, as git itself stops there (a nested repository is a repository of its own).
REPOSITORY_MARK = ".git"
# Columns of output that is not a terminal: wide enough that no table row or message folds;
# a table still takes only the width its cells need.
PIPED_WIDTH = 10_000


def find_repository(start: Path | None = None) -> Path | None:
    """The nearest folder at or above `start` (the working directory) that holds intent/,
    looking no higher than a folder holding .git or the filesystem root; None if none does."""
    here = Path(start) if start is not None else Path.cwd()
    for folder in (here, *here.parents):
        if (folder / "intent").is_dir():
            return folder
        if (folder / REPOSITORY_MARK).exists():
            return None
    return None


def repository(given: Path | None) -> Path:
    """The REPO a command works on: as given, else the repository found upward from the working
    directory, written relative to it (`../..`) so that every path printed stays relative to
    where the user stands; "." when none is found, which reports the missing intent there."""
    if given is not None:
        return given
    cwd = Path.cwd()
    found = find_repository(cwd)
    if found is None or found == cwd:
        return Path(".")
    return Path(os.path.relpath(found, cwd))


class Console(PipeConsole):
    """A terminal keeps its own width; anything else gets PIPED_WIDTH columns, so a piped table
    keeps one row per line instead of folding one word per line at rich's default 80. An
    exported COLUMNS (or width=) still wins, as it does for rich."""

    @property
    def size(self) -> ConsoleDimensions:
        dimensions = super().size
        if self._width is None and self._piped():
            return ConsoleDimensions(PIPED_WIDTH, dimensions.height)
        return dimensions

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        self._width, self._height = new_size

    def _piped(self) -> bool:
        """Not a terminal: the stream itself says so (FORCE_COLOR may ask for colour in a CI
        log, but a log has no width to respect)."""
        isatty = getattr(self.file, "isatty", None)
        try:
            return not (isatty is not None and isatty())
        except ValueError:  # a closed stream
            return True


def write_out(text: str) -> None:
    """All of `text` on standard output, or the error that stopped it. A reader that goes
    away during a large write (`meetme show DEVICE | head -1`) makes the write return short,
    and Python's text layer, which never looks at the count, drops the rest without a word
    (exit 0): the bytes are written until every one is taken, so that the next attempt raises
    BrokenPipeError, which ends the command as every closed pipe does (report_fault: quietly,
    EXIT_READER_GONE)."""
    stream = sys.stdout
    binary = getattr(stream, "buffer", None)
    if binary is None:  # a stream without a byte layer (a test's) writes all or raises
        stream.write(text)
        return
    stream.flush()  # what the text layer holds goes first
    rest = memoryview(text.encode(stream.encoding or "utf-8", stream.errors or "strict"))
    while rest:
        taken = binary.write(rest)
        if not taken:  # a stream that takes nothing more is as good as gone: never loop on it
            raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))
        rest = rest[taken:]
