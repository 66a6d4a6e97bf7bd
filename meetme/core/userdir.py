"""The user's private meetme folder, outside every repository: compiled templates and the key
that signs the content hashes live there.

$MEETME_CACHE_DIR, else $XDG_CACHE_HOME/meetme, else ~/.cache/meetme; MEETME_CACHE_DIR=""
turns it off. A folder is used only when this user owns it and nobody else can write it: what
is in it is run (compiled templates) or trusted (the key)."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_VARIABLE = "MEETME_CACHE_DIR"


def private_dir(name: str) -> Path | None:
    """Sub-folder `name` of the user's meetme folder, made if absent; None when there is none
    this user alone can write."""
    chosen = os.environ.get(CACHE_VARIABLE)
    if chosen == "":
        return None
    if chosen is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        chosen = os.path.join(base, "meetme")
    folder = os.path.join(chosen, name)
    try:
        # the chosen folder is judged before anything is made in it: nothing is left in a
        # folder someone else owns or may write
        if os.path.lexists(chosen) and not _private(chosen):
            return None
        os.makedirs(folder, mode=0o700, exist_ok=True)
        if not (_private(chosen) and _private(folder)):
            return None
    except OSError:
        return None
    return Path(folder)


def _private(path: str) -> bool:
    """This user's, and nobody else may write it."""
    info = os.stat(path)
    return info.st_uid == os.getuid() and not info.st_mode & 0o022
