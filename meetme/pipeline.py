"""The pipeline: load -> resolve -> lint -> build device models -> render -> write or compare.

`lint` also renders in memory and lints the rendered configs (CFG-*), so a template bug that
drops a neighbour's prefix limit or policy fails `meetme lint` even when the intent is clean.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from meetme.generators.build.devices import build_models
from meetme.generators.model import DeviceModel
from meetme.generators.render import RenderError, output_name, render
from meetme.generators.resolve.fabric import SiteFabric, resolve_fabric
from meetme.intent.loader import LoadedIntent, display_path, load_intent
from meetme.outputs import MARKER, folder_entries, write_folder
from meetme.validators.config_lint import RenderedConfig, lint_configs, needs_lint
from meetme.validators.engine import RULES, SEVERITY_ORDER, Finding, Rule, all_rules, run_rules

# The pipeline assembles the rule catalogue: importing the rule modules (and the config lint,
# above) registers their rules with the engine, which itself knows none of them.
from meetme.validators.rules import catalogue  # noqa: F401
from meetme.validators.rules.flow import flow_findings
from meetme.validators.rules.platform import has_gaps, platform_findings
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

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]


def lint(intent_dir: Path, *, templates: Path | None = None, configs: bool = True) -> LintResult:
    """Schema, references and design-standard rules; then, when those found no error, the
    config lint over every device rendered in memory (`templates`: another templates folder,
    for tests; `configs=False` skips the config lint). Raises IntentError when unusable."""
    loaded = load_intent(intent_dir)
    fabrics = resolve_fabric(loaded)
    findings = run_rules(loaded, dict(fabrics))
    result = LintResult(loaded, fabrics, findings)
    if configs and not result.errors:  # the gate `meetme render` uses: no model from bad intent
        _lint_rendered(result, Path(intent_dir).parent / "rendered", templates)
    return result


def _lint_rendered(result: LintResult, out_dir: Path, templates: Path | None) -> None:
    models = build_models(result.loaded, result.fabrics)
    result.models = models
    gaps = platform_findings(result.loaded, models.values())  # PLAT-*: before any render
    # FLOW-*: where routes go on the built models (origins, session VRFs, export policies)
    gaps += flow_findings(result.loaded, result.fabrics, models.values())
    gaps += srv6_findings(result.loaded, models.values())  # SRV6-003: SIDs never leave
    rendered: list[RenderedConfig] = []
    for model in models.values():
        if not needs_lint(model) or has_gaps(model):  # only what the lint reads and can render
            continue
        try:
            files = render(model, templates)
        except RenderError as exc:
            result.render_errors.append(exc)
            continue
        result.rendered[model.hostname] = files
        main = output_name(model)
        rendered.append(RenderedConfig(model, display_path(out_dir / main), files[main]))
    found = lint_configs(rendered, result.loaded.intent.standards.severity)
    result.findings = sorted(
        [*result.findings, *gaps, *found],
        key=lambda f: (f.location, SEVERITY_ORDER[f.severity], f.rule, f.message),
    )


def rule_catalogue() -> list[Rule]:
    """Every rule of this meetme: design-standard rules, config lint and waiver rules."""
    return all_rules()


def find_rule(rule_id: str) -> Rule | None:
    return RULES.get(rule_id.upper())


def device_models(result: LintResult) -> dict[str, DeviceModel]:
    if result.models is not None:
        return result.models
    return build_models(result.loaded, result.fabrics)


def rendered_files(result: LintResult) -> dict[str, str]:
    """Relative output path -> file text for every device of a clean lint: what the config
    lint already rendered, and the devices it did not read rendered now."""
    files: dict[str, str] = {}
    for name, model in device_models(result).items():
        files.update(result.rendered.get(name) or render(model))
    return files


def render_all(models: dict[str, DeviceModel], templates: Path | None = None) -> dict[str, str]:
    """Relative output path -> file text, for every device (`templates`: another folder)."""
    return {path: text for m in models.values() for path, text in render(m, templates).items()}


def write_rendered(out_dir: Path, files: dict[str, str], intent_dir: Path | None = None) -> None:
    """Replace `out_dir` with exactly `files` and meetme's marker, atomically.

    Refuses (outputs.Refused) a folder that is not meetme's own, or that is, holds or sits in
    `intent_dir`, before anything is touched. Files of devices that no longer exist
    disappear with the old folder; if anything fails, `out_dir` is left exactly as it was.
    """
    write_folder(out_dir, files, intent_dir)


@dataclass
class Drift:
    missing: list[str]  # would be written, not on disk
    extra: list[str]  # on disk, would not be written
    changed: list[str]

    @property
    def clean(self) -> bool:
        return not (self.missing or self.extra or self.changed)


def compare_rendered(out_dir: Path, files: dict[str, str]) -> Drift:
    """What differs between `out_dir` and `files`; meetme's marker is not compared. Links
    and special files are never followed or read: they differ from any rendered file."""
    on_disk: dict[str, bool] = {}  # relative name -> a regular file
    if out_dir.is_dir():
        on_disk = {name: regular for name, regular in folder_entries(out_dir) if name != MARKER}
    missing = sorted(set(files) - set(on_disk))
    extra = sorted(set(on_disk) - set(files))
    changed = sorted(
        name
        for name in set(files) & set(on_disk)
        if not (on_disk[name] and _same_bytes(out_dir / name, files[name].encode("utf-8")))
    )
    return Drift(missing, extra, changed)


def _same_bytes(path: Path, expected: bytes) -> bool:
    # the size first: a huge file in rendered/ is never read into memory
    return path.stat().st_size == len(expected) and path.read_bytes() == expected
