"""ASN ranges as AS-path regular expressions, for platforms whose as-path lists have no ranges.

IOS-XR matches `passes-through '[64512..65534]'` natively; EOS, NX-OS and FRR need one regular
expression per run of digits, e.g. 64512-65534 -> _6451[2-9]_, _645[2-9][0-9]_, ...
"""

from __future__ import annotations


def range_regexes(first: int, last: int) -> list[str]:
    """Regular expressions (with `_` delimiters) matching exactly the ASNs first..last."""
    if first > last:
        raise ValueError(f"empty ASN range {first}-{last}")
    patterns = []
    start = first
    for stop in _stops(first, last):
        patterns.append(f"_{_pattern(start, stop)}_")
        start = stop + 1
    return patterns


def _stops(first: int, last: int) -> list[int]:
    """Split [first, last] into runs whose numbers share a prefix and vary in whole digits."""
    stops = {last}
    nines = 1
    stop = _fill_nines(first, nines)
    while first <= stop < last:
        stops.add(stop)
        nines += 1
        stop = _fill_nines(first, nines)
    zeros = 1
    stop = _fill_zeros(last + 1, zeros) - 1
    while first < stop <= last:
        stops.add(stop)
        zeros += 1
        stop = _fill_zeros(last + 1, zeros) - 1
    return sorted(stops)


def _fill_nines(number: int, count: int) -> int:
    text = str(number)
    return int(text[: max(len(text) - count, 0)] + "9" * count)


def _fill_zeros(number: int, count: int) -> int:
    return int(number - number % pow(10, count))


def _pattern(start: int, stop: int) -> str:
    """start and stop have the same length and differ only in a tail of whole digit ranges."""
    pattern = ""
    for low, high in zip(str(start), str(stop), strict=True):
        if low == high:
            pattern += low
        elif low == "0" and high == "9":
            pattern += "[0-9]"
        else:
            pattern += f"[{low}-{high}]"
    return pattern


def length_regex(length: int) -> str:
    """A POSIX extended regular expression matching an AS path of `length` ASNs or more, for
    platforms whose route maps have no length match (NVUE, FRR): `length - 1` runs of digits
    each followed by a separator, then digits. No `_` (FRR rewrites it to its own delimiter
    class); an interval expression is POSIX ERE (glibc regcomp with REG_EXTENDED, as FRR
    compiles AS-path regexes). Each ASN of an AS_SET counts here, where BGP counts the set as
    one: a path with a set is dropped at most a few ASNs early (sets are deprecated, RFC 9774)."""
    if length < 2:
        raise ValueError(f"an AS-path length limit of {length} drops every route")
    return f"([0-9]+[^0-9]+){{{length - 1}}}[0-9]+"


def length_list_name(length: int) -> str:
    """The AS-path list that stands for a length match where a route map has none."""
    return f"AS-PATH-LENGTH-GE-{length}"
