"""The garbage collector's settings for one meetme run, measured on benchmarks/run.py.

A lint builds hundreds of thousands of long-lived objects (device models, the YAML node tree and
line tree of every rendered file); with CPython's default thresholds (700, 10, 10) the collector
re-scans them over and over, and on a 1,040-device site that was more than half of the config
lint and about 45 % of the run's CPU (14.3 s -> 7.9 s with the settings below, peak RSS 210 ->
225 MB; the collector off: 6.5 s, 292 MB). Collections still run, only less often: meetme makes
few reference cycles, and those it makes (a parsed line's parent) are freed in time.
"""

from __future__ import annotations

import gc

THRESHOLDS = (20_000, 50, 100)


def tune_gc() -> None:
    """Leave what is already loaded (modules, the CLI) out of every later collection, and
    collect the youngest generation after 20,000 allocations instead of 700."""
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
