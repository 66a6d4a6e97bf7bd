"""The pipeline: load -> resolve -> lint -> build device models -> render -> write or compare.

`lint` also renders in memory and lints the rendered configs (CFG-*), so a template bug that
drops a neighbour's prefix limit or policy fails `meetme lint` even when the intent is clean.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from meetme.generators.build import build_models
from meetme.generators.fabric import SiteFabric, resolve_fabric
from meetme.generators.model import DeviceModel
from meetme.generators.render import RenderError, output_name, render_device
from meetme.validators.config_lint import RenderedConfig, lint_configs, needs_lint
from meetme.validators.loader import LoadedIntent, display_path, load_intent
from meetme.validators.rules.engine import SEVERITY_ORDER, Finding, run_rules


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
    rendered: list[RenderedConfig] = []
    for model in models.values():
        if not needs_lint(model):  # rendering and parsing only what the lint reads
            continue
        try:
            text = render_device(model, templates)
        except RenderError as exc:
            result.render_errors.append(exc)
            continue
        rendered.append(RenderedConfig(model, display_path(out_dir / output_name(model)), text))
    found = lint_configs(rendered, result.loaded.intent.standards.severity)
    result.findings = sorted(
        [*result.findings, *found],
        key=lambda f: (f.location, SEVERITY_ORDER[f.severity], f.rule, f.message),
    )


def device_models(result: LintResult) -> dict[str, DeviceModel]:
    if result.models is not None:
        return result.models
    return build_models(result.loaded, result.fabrics)


def render_all(models: dict[str, DeviceModel], templates: Path | None = None) -> dict[str, str]:
    """Relative output path -> file text, for every device (`templates`: another folder)."""
    return {output_name(m): render_device(m, templates) for m in models.values()}


def write_rendered(out_dir: Path, files: dict[str, str]) -> None:
    """Write into a temporary sibling folder, then swap it in place of `out_dir`.

    Files of devices that no longer exist disappear with the old folder. If anything fails
    before the swap, `out_dir` is left exactly as it was.
    """
    out_dir = out_dir.resolve()
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.new-", dir=out_dir.parent))
    try:
        for relative, text in sorted(files.items()):
            target = staging / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        os.chmod(staging, 0o755)
        if out_dir.exists():
            retired = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.old-", dir=out_dir.parent))
            os.rename(out_dir, retired / out_dir.name)
            os.rename(staging, out_dir)
            shutil.rmtree(retired, ignore_errors=True)
        else:
            os.rename(staging, out_dir)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


@dataclass
class Drift:
    missing: list[str]  # would be written, not on disk
    extra: list[str]  # on disk, would not be written
    changed: list[str]

    @property
    def clean(self) -> bool:
        return not (self.missing or self.extra or self.changed)


def compare_rendered(out_dir: Path, files: dict[str, str]) -> Drift:
    on_disk = {}
    if out_dir.is_dir():
        for path in sorted(out_dir.rglob("*")):
            if path.is_file():
                on_disk[path.relative_to(out_dir).as_posix()] = path
    missing = sorted(set(files) - set(on_disk))
    extra = sorted(set(on_disk) - set(files))
    changed = sorted(
        name
        for name in set(files) & set(on_disk)
        if on_disk[name].read_bytes() != files[name].encode("utf-8")
    )
    return Drift(missing, extra, changed)
