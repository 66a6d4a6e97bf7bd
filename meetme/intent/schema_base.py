"""The base of every intent object, and the field types several features share."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PrivateAttr

from meetme.core.secret_refs import reference_problem
from meetme.intent.types import bad_value

Path_ = tuple[str | int, ...]


def _secret(value: str) -> str:
    problem = reference_problem(value)  # what to write instead, never quoting the value
    if problem is not None:
        raise bad_value(problem)
    return value


# A secret reference (`secret:NAME`), never a value: edge keys, cloud keys, password hashes.
SecretRef = Annotated[str, AfterValidator(_secret)]
# A prefix limit on a session (edge, clouds, underlay); every platform takes up to this, except
# where its plug-in says less (Platform.max_prefix_limit, PLAT-022).
MAX_PREFIX = 10_000_000
MaxPrefix = Annotated[int, Field(ge=1, le=MAX_PREFIX)]


class Node(BaseModel):
    """Base of every intent object: no unknown keys, and it remembers where it came from."""

    # strict: a whole number is an integer, never true, 1.0 or "1"; a switch is true or false,
    # never "yes" or 1 (pydantic would otherwise convert them without a word)
    model_config = ConfigDict(extra="forbid", validate_default=True, defer_build=True, strict=True)
    _path: Path_ = PrivateAttr(default=())

    @property
    def path(self) -> Path_:
        # Read from pydantic's store of private attributes itself: `self._path` would go
        # through BaseModel.__getattr__ and a descriptor probe that raises and catches an
        # AttributeError, ~30 times slower; the rules ask for paths ~45,000 times at 1,040
        # devices.
        return self.__pydantic_private__["_path"]  # type: ignore[index,no-any-return]

    def set_path(self, path: Path_) -> None:
        """Where this object was written (schema.attach_paths); as fast as `path`."""
        self.__pydantic_private__["_path"] = path  # type: ignore[index]


def ipv6_both_ends(ours: object, peer: object) -> None:
    """A session's IPv6 is our address and the peer's together: with one alone the port gets
    an address and no session is built, which nothing else would say (rules that count a
    family's circuits would count it)."""
    if (ours is None) != (peer is None):
        given, missing = ("ipv6", "peer_ipv6") if peer is None else ("peer_ipv6", "ipv6")
        raise ValueError(
            f"{given} is given without {missing}: an IPv6 session needs both addresses; give "
            f"{missing}, or neither for an IPv4-only session"
        )
