"""One device's share of `render` and `check`: its files rendered, and its config lint.

A device's work depends on its model, its templates and meetme's code only, never on another
device, so it runs in any order and in any process; `run` gives the outcomes back in the order
of the jobs whatever the number of workers, and a worker's outcome is exactly the serial one
(its text, its CFG-* hits, a RenderError's message). A worker that fails otherwise (a bug, a
killed process) is not reported from the worker: its share is run again in this process, so
the error is the serial run's, with its message and exit code, never a worker's traceback.

Workers are forked where the platform can (Linux): they inherit the loaded meetme, the
device models and the compiled templates (every template of the platforms in use is compiled
here before the fork, so no worker compiles one again), and only device index ranges in
and outcomes out cross a pipe. Elsewhere the jobs travel pickled (plain frozen pydantic
models; measured cheaper than building the models again in every worker).

`beside` runs one other piece of work the same way, in a forked process of its own: the
pipeline's design-standard rules, while this process builds the device models.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from meetme.core.background import Background, forked_child
from meetme.generators.model import DeviceModel
from meetme.generators.sources import RenderError, output_name, settled
from meetme.validators.config_lint import RenderedConfig, lint_configs

# Below this many devices per worker, starting workers costs more than it saves; an explicit
# --jobs N is taken as asked. Measured on this project's 2-core machine (`meetme lint --jobs 1`
# against `--jobs 2`, fresh processes, fastest of 1-8 runs taken only while nothing else ran;
# intents from benchmarks/make_intent.py and the example): 14 devices 0.95-1.07 (workers
# time / serial), 20: 0.93-0.98, 28: 0.84-0.87, the example's 34: 0.85-0.92, 56: 0.80. Two
# workers start paying at ~16-20 devices; 16 a worker (two from 32 devices) keeps a margin
# for the fork's cost on a busier machine, where they lose (both cores busy with other
# processes: 1.2-2.8 times serial at 16-240 devices, in-process devicework.run timings).
DEVICES_PER_WORKER = 16
CHUNKS_PER_WORKER = 4  # smaller shares even out devices of unequal cost

T = TypeVar("T")
U = TypeVar("U")
Hit = tuple[str, str, int, int]  # CFG-* rule, message, line, column (severity: the profile's)


@dataclass(frozen=True)
class Job:
    model: DeviceModel
    file: str  # the main file's name as findings show it (rendered/<site>/<device><suffix>)
    lint: bool  # whether the config lint reads this device (config_lint.needs_lint)


@dataclass(frozen=True)
class Outcome:
    files: dict[str, str]  # path relative to the output folder -> text
    templates: dict[str, str]  # template name -> digest of its source (render.render_traced)
    hits: tuple[Hit, ...] = ()
    error: str | None = None  # a template failed: a RenderError's message (a meetme bug)


def work(job: Job, templates: Path | None = None) -> Outcome:
    """Render one device and lint what it rendered."""
    from meetme.generators.render import render_traced  # Jinja2 only where a device renders

    try:
        files, used = render_traced(job.model, templates)
    except RenderError as exc:
        return Outcome({}, {}, (), str(exc))
    hits: tuple[Hit, ...] = ()
    if job.lint:
        config = RenderedConfig(job.model, job.file, files[output_name(job.model)])
        found = lint_configs([config])  # default severities: the profile applies later
        hits = tuple((f.rule, f.message, f.location.line, f.location.column) for f in found)
    return Outcome(files, used, hits)


def beside(background: Callable[[], T], here: Callable[[], U]) -> tuple[T, Callable[[], U]]:
    """`background()` in a forked process while `here()` runs in this one: the background's
    value, and a callable that gives `here()`'s value or raises what it raised, so a caller
    decides after the background whether the value counts. Where processes cannot fork, or
    the background fails there, it runs here afterwards: its error is a serial run's
    (core.background)."""
    with Background(background) as job:
        done = _kept(here)
        return job.result(), done


def _kept(work: Callable[[], U]) -> Callable[[], U]:
    """`work()` run now; a callable that returns its value or raises what it raised."""
    try:
        value = work()
    except Exception as exc:
        failure = exc

        def fail() -> U:
            raise failure

        return fail
    return lambda: value


def workers_for(devices: int, jobs: int | None) -> int:
    """How many processes share `devices` devices: `jobs` (None: the cores, and only as many
    as have DEVICES_PER_WORKER devices each); 1 means this process alone."""
    if jobs is None:
        return max(1, min(os.cpu_count() or 1, devices // DEVICES_PER_WORKER))
    return max(1, min(jobs, devices))


def run(jobs: Sequence[Job], templates: Path | None = None, workers: int = 1) -> list[Outcome]:
    """`work` on every job; the outcomes in the order of `jobs`."""
    with settled():  # the templates as they are now, each checked once for every device
        return _run(jobs, templates, workers)


def _run(jobs: Sequence[Job], templates: Path | None, workers: int) -> list[Outcome]:
    if workers <= 1 or len(jobs) < 2:
        return [work(job, templates) for job in jobs]
    from meetme.generators.render import compile_templates

    # Every template of the platforms here, before any fork: each is compiled once, in this
    # process, and every worker inherits it instead of compiling it again. Rendering each
    # platform's first device here did the same, but with the workers waiting for it.
    try:
        for platform in sorted({job.model.platform for job in jobs}):
            compile_templates(platform, templates)
    except Exception:
        return [work(job, templates) for job in jobs]  # fails where the serial run fails first
    return _in_workers(jobs, templates, workers)


def _in_workers(jobs: Sequence[Job], templates: Path | None, workers: int) -> list[Outcome]:
    """`work` on every job in `workers` processes; a share that fails there is done again
    here, with every job after it, so that the first error is the serial run's."""
    if not jobs:
        return []
    count = min(len(jobs), workers * CHUNKS_PER_WORKER)
    bounds = [(len(jobs) * i // count, len(jobs) * (i + 1) // count) for i in range(count)]
    forked = "fork" in multiprocessing.get_all_start_methods()
    global _INHERITED
    _INHERITED = (tuple(jobs), templates) if forked else None
    context = multiprocessing.get_context("fork") if forked else None
    outcomes: list[Outcome] = []
    try:
        # a worker's collector never scans what it inherited, and it dies with this process
        with ProcessPoolExecutor(
            max_workers=min(workers, count),
            mp_context=context,
            initializer=forked_child,
            initargs=(os.getpid(),),
        ) as pool:
            futures: list[Future[list[Outcome]]] = [
                pool.submit(_share, start, stop)
                if forked
                else pool.submit(_share_of, jobs[start:stop], templates)
                for start, stop in bounds
            ]
            for index, future in enumerate(futures):
                try:
                    outcomes += future.result()
                except Exception:
                    for later in futures[index:]:
                        later.cancel()
                    outcomes += [work(job, templates) for job in jobs[bounds[index][0] :]]
                    break
    finally:
        _INHERITED = None
    return outcomes


# What forked workers read instead of receiving the jobs through a pipe.
_INHERITED: tuple[tuple[Job, ...], Path | None] | None = None


def _share(start: int, stop: int) -> list[Outcome]:
    if _INHERITED is None:  # pragma: no cover - only a forked worker runs this
        raise RuntimeError("no jobs inherited")
    jobs, templates = _INHERITED
    return [work(job, templates) for job in jobs[start:stop]]


def _share_of(jobs: Sequence[Job], templates: Path | None) -> list[Outcome]:
    return [work(job, templates) for job in jobs]
