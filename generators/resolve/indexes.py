"""Per-site indexes, computed once per site object instead of a scan of the site per device.

A builder or rule asking "which attachments name this leaf" or "which devices does this one
EVPN-peer with" for every device of a site used to scan the whole site each time: quadratic in
devices (a 4,000-device site spent most of its build there). `memo(site, key, compute)` keeps
the answer for the whole site, keyed by the site object and the identity and size of the
collections an index is built from, so a site rebuilt or given new collections (a test's
`model_copy(update=...)`) is indexed anew. The intent is never edited in place after loading.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, TypeVar

from meetme.intent.schema import Site

T = TypeVar("T")

# (id of the site, index name) -> (the site, its collections' stamp, the index)
_MEMO: dict[tuple[int, str], tuple[weakref.ref[Site], tuple[int, ...], Any]] = {}


def _stamp(site: Site) -> tuple[int, ...]:
    parts = (site.devices, site.attachments, site.tenants, site.pods)
    return tuple(n for part in parts for n in (id(part), len(part)))


def memo(site: Site, key: str, compute: Callable[[], T]) -> T:
    """The index `key` of `site`, computed by `compute` the first time it is asked for."""
    stamp = _stamp(site)
    found = _MEMO.get((id(site), key))
    if found is not None and found[0]() is site and found[1] == stamp:
        return found[2]  # type: ignore[no-any-return]
    value = compute()
    if found is None:  # drop the site's indexes with it: ids are reused
        weakref.finalize(site, _forget, id(site))
    _MEMO[(id(site), key)] = (weakref.ref(site), stamp, value)
    return value


def _forget(site_id: int) -> None:
    for memo_key in [k for k in _MEMO if k[0] == site_id]:
        del _MEMO[memo_key]
