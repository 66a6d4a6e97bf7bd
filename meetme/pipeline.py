"""The pipeline: load -> resolve -> lint -> build device models -> render -> write or compare.

`lint` also renders in memory and lints the rendered configs (CFG-*), so a template bug that
drops a neighbour's prefix limit or policy fails `meetme lint` even when the intent is clean.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path

# Importing the catalogue registers every rule with the engine, which itself knows none of them.
from meetme import catalogue, devicework  # noqa: F401
from meetme.core.findings import SEVERITY_ORDER, Finding
from meetme.core.problems import Location
from meetme.devicework import Job, Outcome
from meetme.generators.build.devices import build_models
from meetme.generators.model import DeviceModel
from meetme.generators.resolve.fabric import SiteFabric, resolve_fabric
from meetme.generators.sources import RenderError, output_name, settled
from meetme.hashes import Cache, hashes_text, model_digest
from meetme.intent.loader import LoadedIntent, display_path, load_intent
from meetme.outputs import write_folder
from meetme.record import intent_key
from meetme.validators.config_lint import needs_lint
from meetme.validators.engine import RULES, UNUSED_WAIVER, apply_standards, run_rules
from meetme.validators.rules.addr import overlap_findings
from meetme.validators.rules.edge import long_path_findings
from meetme.validators.rules.flow import flow_findings
from meetme.validators.rules.limits import limit_findings
from meetme.validators.rules.platform import has_gaps, not_reported_twice, platform_findings
from meetme.validators.rules.srv6 import srv6_findings


@dataclass
class LintResult:
    loaded: LoadedIntent
    fabrics: dict[str, SiteFabric]
    findings: list[Finding]
    # Built by the config lint (None when it did not run); `device_models` reuses them.
    models: dict[str, DeviceModel] | None = None
    # Templates that failed on a device model: a meetme bug, reported by `meetme render`. The
    # config lint skips those devices; nothing here turns them into findings.
    render_errors: list[RenderError] = field(default_factory=list)
    # What the config lint rendered, by device: `rendered_files` writes these, not a second
    # render of the same model.
    rendered: dict[str, dict[str, str]] = field(default_factory=dict)
    # How devices are rendered: processes (`--jobs`; None: the cores) and the content hashes
    # of an earlier render to reuse unchanged devices from (None: render every device).
    jobs: int | None = 1
    cache: Cache | None = None
    # Every device rendered so far: its model digest and outcome (what the hash file records),
    # and the names of those read back from `cache` instead of rendered.
    outcomes: dict[str, tuple[str, Outcome]] = field(default_factory=dict)
    reused: set[str] = field(default_factory=set)
    # The intent folder and its record key (meetme/record.py) taken before it was read: the
    # hash file records these findings only if the key still holds when it is written.
    intent_dir: Path | None = None
    intent_key: str | None = None

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]


def lint(
    intent_dir: Path,
    *,
    templates: Path | None = None,
    configs: bool = True,
    jobs: int | None = 1,
    cache: Cache | None = None,
) -> LintResult:
    """Schema, references and design-standard rules; then, when those found no error, the
    config lint over every device rendered in memory (`templates`: another templates folder,
    for tests; `configs=False` skips the config lint). `jobs` processes render and lint
    (None: the cores); devices whose content hashes in `cache` still hold are read back from
    its folder instead. Raises IntentError when unusable."""
    key = intent_key(intent_dir) if configs and templates is None else None
    loaded = load_intent(intent_dir)
    fabrics = resolve_fabric(loaded)
    devices = sum(len(site.devices) for site in loaded.intent.sites.values())
    built: Callable[[], dict[str, DeviceModel]] = lambda: build_models(loaded, fabrics)  # noqa: E731

    def design() -> list[Finding]:
        # the standards profile and the waivers are applied once, to every finding of the
        # run (design rules, model findings, config lint): a waiver covers a model finding
        return run_rules(loaded, dict(fabrics), standards=False)

    if configs and devicework.workers_for(devices, jobs) > 1:
        # the rules in another process while the models are built here; the models are
        # used only when the rules find no error, as in the serial order
        findings, built = devicework.beside(design, built)
    else:
        findings = design()
    result = LintResult(loaded, fabrics, _judged(loaded, findings), jobs=jobs, cache=cache)
    result.intent_dir, result.intent_key = Path(intent_dir), key
    if not configs:
        return result
    # the gate `meetme render` uses: no model from bad intent. A waiver the design rules
    # leave unused may cover a model finding: the run's last judgement says whether it does.
    if not [f for f in result.errors if f.rule != UNUSED_WAIVER]:
        found = _lint_rendered(result, Path(intent_dir).parent / "rendered", templates, built)
    else:
        found = _lint_models_of_bad_intent(result, built)
    result.findings = _judged(loaded, [*findings, *found])
    return result


def _judged(loaded: LoadedIntent, findings: list[Finding]) -> list[Finding]:
    """The findings at the standards profile's severities, waived where a waiver covers
    them, with the waivers' own findings (WAIVER-*), in report order."""
    return sorted(
        apply_standards(findings, loaded),
        key=lambda f: (f.location, SEVERITY_ORDER[f.severity], f.rule, f.message),
    )


def model_findings(
    loaded: LoadedIntent, fabrics: dict[str, SiteFabric], models: dict[str, DeviceModel]
) -> list[Finding]:
    """The findings of the built models: what a platform cannot print (PLAT-*), where routes
    go (FLOW-*: origins, session VRFs, export policies), long AS paths every external session
    drops (EDGE-013), SRv6 SIDs that leave and locators
    that do not arrive (SRV6-*), prefix limits below what sessions carry (LIMIT-*), and
    subnets that overlap on one device (ADDR-018)."""
    found = platform_findings(loaded, models.values())
    found += flow_findings(loaded, fabrics, models.values())
    found += long_path_findings(loaded, fabrics, models.values())
    found += srv6_findings(loaded, models.values())
    found += limit_findings(loaded, models.values())
    found += overlap_findings(loaded, models.values(), fabrics)
    return found


def _lint_models_of_bad_intent(
    result: LintResult, built: Callable[[], dict[str, DeviceModel]]
) -> list[Finding]:
    """The model findings of an intent the design rules refuse, so that one run reports all
    its problems (moving a border to another platform otherwise takes a lint round for its
    design errors, then one for what the platform cannot print). Nothing is rendered and
    `result.models` stays unset, so no later step renders them. A design error can break what
    the builders take for granted (an address pool too small, a broken reference between
    rules): then the design errors alone are reported, as they would be without this step."""
    if any(f.unnumbered for f in result.fabrics.values()):
        return []  # models missing links PHY-016 names would report them missing again
    try:
        found = model_findings(result.loaded, result.fabrics, built())
    except Exception:  # the design errors above already say what to fix
        return []
    return not_reported_twice(found, result.findings)


def _lint_rendered(
    result: LintResult,
    out_dir: Path,
    templates: Path | None,
    built: Callable[[], dict[str, DeviceModel]],
) -> list[Finding]:
    """The model findings of a clean design, then the config lint (CFG-*) of every device
    rendered in memory: their findings, unjudged."""
    models = built()
    result.models = models
    # only what the lint reads and can render
    linted = [m for m in models.values() if needs_lint(m) and not has_gaps(m)]
    shown = display_path(out_dir)  # once: resolving each file's folder costs 40 ms a 1,000
    jobs = [Job(m, f"{shown}/{output_name(m)}", lint=True) for m in linted]
    rendered: Callable[[], list[Outcome]] = lambda: _outcomes(result, jobs, templates)  # noqa: E731
    # one call site: a bug in them is reported at the same line in either order
    findings: Callable[[], list[Finding]] = lambda: model_findings(  # noqa: E731
        result.loaded, result.fabrics, models
    )
    if devicework.workers_for(len(models), result.jobs) > 1:
        # the model findings in another process while the devices are rendered here
        found, rendered = devicework.beside(findings, rendered)
    else:
        found = findings()
    for job, outcome in zip(jobs, rendered(), strict=True):
        if outcome.error is not None:
            result.render_errors.append(RenderError(outcome.error))
            continue
        result.rendered[job.model.hostname] = outcome.files
        found += _cfg_findings(job, outcome)
    return found


def _outcomes(result: LintResult, jobs: list[Job], templates: Path | None) -> list[Outcome]:
    """Each job's outcome, in order: read back where the cache's hashes hold, else rendered
    (and linted) by `devicework.run`; every outcome is recorded in `result`."""
    digests = [model_digest(job.model) for job in jobs]
    known: dict[int, Outcome] = {}
    if result.cache is not None:
        with settled():  # each template's file is checked once, not once per device
            for index, (job, digest) in enumerate(zip(jobs, digests, strict=True)):
                reused = result.cache.reuse(job.model, digest, templates)
                if reused is not None:
                    known[index] = reused
                    result.reused.add(job.model.hostname)
    todo = [job for index, job in enumerate(jobs) if index not in known]
    workers = devicework.workers_for(len(todo), result.jobs)
    fresh = iter(devicework.run(todo, templates, workers))
    outcomes = [known[i] if i in known else next(fresh) for i in range(len(jobs))]
    for job, digest, outcome in zip(jobs, digests, outcomes, strict=True):
        if outcome.error is None:
            result.outcomes[job.model.hostname] = (digest, outcome)
    return outcomes


def _cfg_findings(job: Job, outcome: Outcome) -> list[Finding]:
    """The CFG-* findings of one device's hits."""
    path = f"sites.{job.model.site}.devices.{job.model.hostname}.config"
    return [
        Finding(rule, RULES[rule].severity, message, Location(job.file, *at), path)
        for rule, message, *at in outcome.hits
    ]


def device_models(result: LintResult) -> dict[str, DeviceModel]:
    if result.models is not None:
        return result.models
    return build_models(result.loaded, result.fabrics)


def rendered_files(result: LintResult, leave_out: Collection[str] = ()) -> dict[str, str]:
    """Relative output path -> file text for every device of a clean lint: what the config
    lint already rendered, and the devices it did not read rendered now; the devices named in
    `leave_out` are not rendered (`meetme diff`: those whose platform cannot print them, which
    their PLAT-* findings name). Raises RenderError (the first in device order) when a
    template fails."""
    models = {n: m for n, m in device_models(result).items() if n not in leave_out}
    jobs = [Job(m, "", lint=False) for name, m in models.items() if name not in result.rendered]
    for job, outcome in zip(jobs, _outcomes(result, jobs, None), strict=True):
        if outcome.error is not None:
            raise RenderError(outcome.error)
        result.rendered[job.model.hostname] = outcome.files
    return {path: text for name in models for path, text in result.rendered[name].items()}


def hash_file(result: LintResult) -> str:
    """The content hashes of every device `rendered_files` gave (meetme/hashes.py), and the
    lint record when the intent is still the one linted (meetme/record.py)."""
    record = None
    key, folder = result.intent_key, result.intent_dir
    models = device_models(result)
    # only while the intent is still the one linted, and for a render of every device
    if key and folder and set(models) == set(result.outcomes) and intent_key(folder) == key:
        record = (key, result.findings, {name: output_name(m) for name, m in models.items()})
    return hashes_text(((name, d, o) for name, (d, o) in result.outcomes.items()), record)


def render_all(
    models: dict[str, DeviceModel], templates: Path | None = None, jobs: int | None = 1
) -> dict[str, str]:
    """Relative output path -> file text, for every device (`templates`: another folder).
    Raises RenderError (the first in device order) when a template fails."""
    todo = [Job(m, "", lint=False) for m in models.values()]
    workers = devicework.workers_for(len(todo), jobs)
    files: dict[str, str] = {}
    for outcome in devicework.run(todo, templates, workers):
        if outcome.error is not None:
            raise RenderError(outcome.error)
        files.update(outcome.files)
    return files


def write_rendered(
    out_dir: Path, files: dict[str, str], intent_dir: Path | None = None, hashes: str | None = None
) -> int:
    """Replace `out_dir` with exactly `files`, meetme's marker and the `hashes` file (`hash_file`),
    atomically; returns how many files were written anew (unchanged ones are linked).

    Refuses (outputs.Refused) a folder that is not meetme's own, or that is, holds or sits in
    `intent_dir`, before anything is touched. Files of devices that no longer exist
    disappear with the old folder; if anything fails, `out_dir` is left exactly as it was.
    """
    return write_folder(out_dir, files, intent_dir, hashes)
