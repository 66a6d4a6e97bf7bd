"""Command-line conventions shared by `meetme.cli` and `meetme.deploy_cli`: which repository a
command works on when none is named, and how wide its output is.

Both follow git: a command run in any subfolder of the repository works on the whole of it,
and output piped into a file, a pager or a CI log is never folded at an arbitrary 80 columns.
"""

from __future__ import annotations

import os
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
