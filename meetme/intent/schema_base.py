"""The base of every intent object."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, PrivateAttr

Path_ = tuple[str | int, ...]


class Node(BaseModel):
    """Base of every intent object: no unknown keys, and it remembers where it came from."""

    model_config = ConfigDict(extra="forbid", validate_default=True)
    _path: Path_ = PrivateAttr(default=())

    @property
    def path(self) -> Path_:
        return self._path
