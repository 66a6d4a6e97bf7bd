"""Incremental `render`, `check` and `diff`: content hashes beside rendered/ (meetme/hashes.py).

A device is rendered again exactly when its model, a template it asked for, meetme (version or
code) or its file on disk changed; the result is always byte for byte a full render's, and a
run that fails writes nothing, the hash file included.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import EXAMPLE_INTENT, after_report, replace_in
from helpers import git
from meetme.generators.platforms import PLATFORMS
from typer.testing import CliRunner
from variants import LF4_MGMT  # aus1-lf4's management address: its own config only

from meetme import devicework
from meetme.cli import app
from meetme.hashes import UNRENDERED, model_digest
from meetme.outputs import HASHES
from meetme.pipeline import device_models, lint

runner = CliRunner()
DEVICES = 34  # the example: aus1 18, mel1 16
# the example's NX-OS devices (site/name)
NXOS = ["aus1/aus1-bl3", "aus1/aus1-bl4", "aus1/aus1-lf3", "aus1/aus1-lf4", "mel1/mel1-bl1"]
NXOS += ["mel1/mel1-bl2", "mel1/mel1-lf101", "mel1/mel1-lf102", "mel1/mel1-lf103"]
NXOS += ["mel1/mel1-lf104", "mel1/mel1-lf201", "mel1/mel1-lf202"]


def render(*args: str) -> str:
    """What `meetme render ARGS` printed after the example's lint report (three warnings)."""
    result = runner.invoke(app, ["render", *args])
    assert result.exit_code == 0, result.output
    return after_report(result.stdout)


class Noted:
    """`devicework.work`, patched to note each device it renders in a file, so that what a
    forked process renders (`diff` renders the base's side in one) is noted too."""

    def __init__(self, log: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.log = log
        real = devicework.work

        def work(job: devicework.Job, templates: Path | None = None) -> devicework.Outcome:
            with log.open("a", encoding="utf-8") as noted:
                noted.write(job.file + "\n")
            return real(job, templates)

        monkeypatch.setattr(devicework, "work", work)

    def __call__(self) -> list[str]:
        return self.log.read_text(encoding="utf-8").splitlines() if self.log.exists() else []

    def clear(self) -> None:
        self.log.unlink(missing_ok=True)


def tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def stamps(folder: Path) -> dict[str, tuple[int, int]]:
    """(inode, modification time) of every file: what tells a rewritten file from a kept one."""
    return {
        p.relative_to(folder).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def rewritten(before: dict[str, tuple[int, int]], folder: Path) -> list[str]:
    after = stamps(folder)
    return sorted(name for name in after if before.get(name) != after[name])


def assert_equals_a_full_render(example: Path) -> None:
    render("--full", "--out", str(example / "full"))
    assert tree(example / "rendered") == tree(example / "full")


@pytest.fixture
def nxos_templates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The NX-OS plug-in reading a copy of its templates, which a test may edit."""
    plugin = PLATFORMS["cisco_nxos"]
    source = Path(__file__).resolve().parents[1] / "templates" / "cisco_nxos"
    copy = tmp_path / "templates" / "cisco_nxos"
    shutil.copytree(source, copy)
    monkeypatch.setitem(PLATFORMS, "cisco_nxos", dataclasses.replace(plugin, templates=copy))
    return copy


def test_a_second_render_renders_nothing_and_writes_nothing(example: Path) -> None:
    assert render().startswith(f"{DEVICES} of {DEVICES} device(s) rendered anew, 34 file(s)")
    before = stamps(example / "rendered")
    assert render().startswith(f"0 of {DEVICES} device(s) rendered anew, 0 file(s) written")
    assert rewritten(before, example / "rendered") == []


def test_one_device_changed_rewrites_exactly_its_file(example: Path) -> None:
    render()
    before = stamps(example / "rendered")
    old = (example / "rendered/aus1/aus1-lf4.cfg").read_text()
    replace_in(example / "intent/aus1/devices.yaml", *LF4_MGMT)

    assert render().startswith(f"1 of {DEVICES} device(s) rendered anew, 1 file(s) written")
    # the device's config and meetme's hash file; no other file touched, not even the marker
    assert rewritten(before, example / "rendered") == [HASHES, "aus1/aus1-lf4.cfg"]
    new = (example / "rendered/aus1/aus1-lf4.cfg").read_text()
    assert "ip address 192.168.10.104/24" in old and "ip address 192.168.10.114/24" in new
    assert_equals_a_full_render(example)


def test_a_template_change_redoes_every_device_that_uses_it_and_no_other(
    example: Path, nxos_templates: Path
) -> None:
    render()
    before = stamps(example / "rendered")
    # a Jinja comment: every NX-OS device is rendered again, and its text does not change
    template = nxos_templates / "overlay_services.j2"
    template.write_text("{# reviewed #}\n" + template.read_text())
    assert render().startswith(f"{len(NXOS)} of {DEVICES} device(s) rendered anew, 0 file(s)")
    assert rewritten(before, example / "rendered") == [HASHES]  # its template digests

    # a config comment: the NX-OS configs change, and only they
    template.write_text("!! incremental\n" + template.read_text())
    before = stamps(example / "rendered")
    assert render().startswith(f"{len(NXOS)} of {DEVICES} device(s) rendered anew, 12 file(s)")
    changed = [f"{name}.cfg" for name in NXOS]
    assert rewritten(before, example / "rendered") == sorted([HASHES, *changed])
    assert all("!! incremental" in (example / "rendered" / name).read_text() for name in changed)
    assert_equals_a_full_render(example)


def test_what_the_model_digest_leaves_out_is_never_rendered(example: Path) -> None:
    """hashes.UNRENDERED (where a device is declared) may differ while the hash holds: then no
    device's files or CFG-* hits may depend on it."""
    models = device_models(lint(example / "intent", configs=False))
    assert len(models) == DEVICES
    for model in models.values():
        moved = model.model_copy(update=dict.fromkeys(UNRENDERED, "elsewhere.yaml:9:9"))
        assert model_digest(moved) == model_digest(model)
        job, moved_job = (devicework.Job(m, "x.cfg", lint=True) for m in (model, moved))
        assert devicework.work(moved_job) == devicework.work(job)


def test_a_template_a_device_does_not_use_never_redoes_it(
    example: Path, nxos_templates: Path
) -> None:
    render()
    (nxos_templates / "unused.j2").write_text("!! nobody includes me\n")
    assert render().startswith(f"0 of {DEVICES} device(s) rendered anew")


@pytest.mark.parametrize(
    "damage",
    [
        lambda f: f.unlink(),
        lambda f: f.write_text(f.read_text()[:200]),  # cut short
        lambda f: f.write_text("[]\n"),
        lambda f: f.write_bytes(b"\xff\xfe not json"),
    ],
    ids=["absent", "truncated", "not-an-object", "not-utf8"],
)
def test_a_missing_or_corrupt_hash_file_means_a_full_render(
    example: Path, damage: Callable[[Path], object]
) -> None:
    render()
    expected = tree(example / "rendered")
    damage(example / "rendered" / HASHES)
    assert render().startswith(f"{DEVICES} of {DEVICES} device(s) rendered anew, 0 file(s)")
    assert tree(example / "rendered") == expected  # the hash file is whole again


def test_entries_that_name_another_devices_files_are_not_trusted(example: Path) -> None:
    """A hash file edited by hand (or merged badly): each entry must name its own device's files."""
    render()
    expected = tree(example / "rendered")
    hashes = example / "rendered" / HASHES
    data = json.loads(hashes.read_text())
    devices = data["devices"]
    devices["aus1-lf1"], devices["aus1-lf2"] = devices["aus1-lf2"], devices["aus1-lf1"]
    hashes.write_text(json.dumps(data))
    assert render().startswith(f"2 of {DEVICES} device(s) rendered anew, 0 file(s) written")
    assert tree(example / "rendered") == expected
    hashes.write_text(json.dumps(data))
    assert runner.invoke(app, ["check"]).exit_code == 0  # check reads both back as rendered


def _release(name: str, changed: str, release: str) -> str:
    """The installed release of `name`, but `release` for the distribution `changed`."""
    return release if name == changed else importlib.metadata.version(name)


@pytest.mark.parametrize(
    ("key", "target", "value"),
    [
        ("meetme", "meetme.hashes.version", lambda name: _release(name, "meetme", "99.0.0")),
        # read from its distribution: an unchanged site never imports Jinja2
        ("jinja2", "meetme.hashes.version", lambda name: _release(name, "jinja2", "9.9.9")),
        ("code", "meetme.hashes._code_digest", lambda: "0" * 64),  # a module of the renderer
        ("python", "meetme.hashes.platform.python_version", lambda: "3.99.0"),
        ("pyyaml", "yaml.__version__", "9.9.9"),  # writes and reads every NVUE file
    ],
)
def test_a_hash_file_of_another_meetme_version_is_not_trusted(
    example: Path, monkeypatch: pytest.MonkeyPatch, key: str, target: str, value: object
) -> None:
    render()
    before = json.loads((example / "rendered" / HASHES).read_text())["stamp"]
    monkeypatch.setattr("meetme.hashes._STAMP", {})
    monkeypatch.setattr(target, value)
    # another meetme or Jinja2 is another lint record key too: its distributions, its files
    monkeypatch.setattr("meetme.record._installed", lambda: [f"{key}-9.9.9.dist-info"])
    assert render().startswith(f"{DEVICES} of {DEVICES} device(s) rendered anew")
    stamp = json.loads((example / "rendered" / HASHES).read_text())["stamp"]
    assert stamp[key] != before[key]
    assert {k: v for k, v in stamp.items() if k != key} == {
        k: v for k, v in before.items() if k != key
    }
    assert render().startswith(f"0 of {DEVICES} device(s) rendered anew")


def test_a_stamp_edited_to_the_current_codes_voids_every_entry(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The renderer changed; someone sets the stamp's code digest to the new one by hand: the
    entries were signed with the old stamp, so none of the old output is taken as current."""
    render()
    path = example / "rendered" / HASHES
    data = json.loads(path.read_text())
    monkeypatch.setattr("meetme.hashes._STAMP", {})
    monkeypatch.setattr("meetme.hashes._code_digest", lambda: "1" * 64)
    monkeypatch.setattr("meetme.record._installed", lambda: ["code-9.9.9.dist-info"])
    data["stamp"]["code"] = "1" * 64
    path.write_text(json.dumps(data))
    assert render().startswith(f"{DEVICES} of {DEVICES} device(s) rendered anew")


def test_a_hand_edited_file_is_drift_for_check_and_render_restores_it(example: Path) -> None:
    render()
    cfg = example / "rendered/aus1/aus1-sp1.cfg"
    cfg.write_text(cfg.read_text().replace("hostname aus1-sp1", "hostname aus1-spX"))
    check = runner.invoke(app, ["check"])
    assert check.exit_code == 1
    assert check.stdout.splitlines()[0].endswith("rendered/aus1/aus1-sp1.cfg")
    assert render().startswith(f"1 of {DEVICES} device(s) rendered anew, 1 file(s) written")
    assert "hostname aus1-sp1\n" in cfg.read_text()
    assert runner.invoke(app, ["check"]).exit_code == 0


def test_a_hand_edit_with_its_digest_edited_too_is_still_drift(example: Path) -> None:
    """The hash file is committed output anyone can edit: a rendered file changed by hand with
    its digest changed to match must not pass the merge gate (the entry's signature breaks)."""
    render()
    cfg = example / "rendered/aus1/aus1-sp1.cfg"
    cfg.write_text(cfg.read_text().replace("hostname aus1-sp1", "hostname aus1-spX"))
    hashes = example / "rendered" / HASHES
    data = json.loads(hashes.read_text())
    digest = hashlib.sha256(cfg.read_bytes()).hexdigest()
    data["devices"]["aus1-sp1"]["files"]["aus1/aus1-sp1.cfg"] = digest
    hashes.write_text(json.dumps(data))
    check = runner.invoke(app, ["check"])
    assert check.exit_code == 1
    assert check.stdout.splitlines()[0].endswith("rendered/aus1/aus1-sp1.cfg")
    assert render().startswith(f"1 of {DEVICES} device(s) rendered anew, 1 file(s) written")
    assert "hostname aus1-sp1\n" in cfg.read_text()


def test_a_hash_file_signed_by_another_user_is_not_trusted(
    example: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another machine's or user's hash file (a CI runner's first run): every device again."""
    monkeypatch.setenv("MEETME_CACHE_DIR", str(tmp_path / "mine"))
    render()
    monkeypatch.setenv("MEETME_CACHE_DIR", str(tmp_path / "theirs"))
    assert render().startswith(f"{DEVICES} of {DEVICES} device(s) rendered anew, 0 file(s)")
    assert render().startswith(f"0 of {DEVICES} device(s) rendered anew")  # signed anew


def test_without_a_private_folder_no_hash_is_trusted(
    example: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MEETME_CACHE_DIR", "")
    render()
    assert render().startswith(f"{DEVICES} of {DEVICES} device(s) rendered anew, 0 file(s)")


@pytest.fixture
def lf4_moved(example: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Noted:
    """The example rendered, then aus1-lf4's management address moved; what is rendered from
    then on is noted."""
    render()
    replace_in(example / "intent/aus1/devices.yaml", *LF4_MGMT)
    return Noted(tmp_path / "noted.log", monkeypatch)


def test_check_after_one_change_redoes_that_device_only(lf4_moved: Noted) -> None:
    done = lf4_moved
    check = runner.invoke(app, ["check", "--jobs", "1"])
    assert check.exit_code == 1
    assert check.stdout.splitlines()[0].endswith("rendered/aus1/aus1-lf4.cfg")
    assert done() == ["rendered/aus1/aus1-lf4.cfg"]
    done.clear()
    assert runner.invoke(app, ["check", "--jobs", "1", "--full"]).exit_code == 1
    assert len(done()) == DEVICES


def test_lint_reads_back_unchanged_devices_and_says_what_a_full_lint_says(
    example: Path, lf4_moved: Noted
) -> None:
    done = lf4_moved
    again = runner.invoke(app, ["lint", "--jobs", "1"])
    assert done() == ["rendered/aus1/aus1-lf4.cfg"]  # the config lint read the others back
    done.clear()
    (example / "rendered" / HASHES).unlink()
    full = runner.invoke(app, ["lint", "--jobs", "1"])
    assert len(done()) == DEVICES
    assert (again.exit_code, again.stdout) == (full.exit_code, full.stdout)


def test_a_failed_render_writes_nothing_not_even_the_hashes(example: Path) -> None:
    render()
    before, kept = tree(example / "rendered"), stamps(example / "rendered")
    replace_in(example / "intent/aus1/devices.yaml", *LF4_MGMT)  # a change that would render
    replace_in(example / "intent/aus1/devices.yaml", "room: aus1-mdf-b", "room: aus1-mdf-a")
    replace_in(example / "intent/aus1/devices.yaml", "rack: mdf-b-r01", "rack: mdf-a-r01")
    result = runner.invoke(app, ["render"])
    assert result.exit_code == 1 and "PHY-001" in result.output
    assert tree(example / "rendered") == before
    assert rewritten(kept, example / "rendered") == []


def test_a_template_failure_writes_nothing_not_even_the_hashes(
    example: Path, nxos_templates: Path
) -> None:
    render()
    before = tree(example / "rendered")
    (nxos_templates / "overlay_services.j2").write_text("{{ device.no_such_field }}\n")
    result = runner.invoke(app, ["render"])
    assert result.exit_code == 3
    assert "a template failed" in result.output and "no_such_field" in result.output
    assert tree(example / "rendered") == before


# --- diff --base --------------------------------------------------------------------------


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository whose first commit is the example intent and its rendered/."""
    shutil.copytree(EXAMPLE_INTENT, tmp_path / "intent")
    monkeypatch.chdir(tmp_path)
    render()
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "example intent, rendered")
    return tmp_path


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_diff_reuses_both_sides_hashes_and_says_the_same(
    repo: Path, monkeypatch: pytest.MonkeyPatch, fmt: str, tmp_path: Path
) -> None:
    replace_in(repo / "intent/aus1/devices.yaml", *LF4_MGMT)
    done = Noted(tmp_path / "noted.log", monkeypatch)

    incremental = runner.invoke(app, ["diff", "--base", "HEAD", "--format", fmt, "-j", "1"])
    assert incremental.exit_code == 0, incremental.output
    # the working tree's side renders the changed device; the base's side reads all back
    assert done() == ["rendered/aus1/aus1-lf4.cfg"]
    done.clear()
    full = runner.invoke(app, ["diff", "--base", "HEAD", "--format", fmt, "-j", "1", "--full"])
    assert len(done()) == 2 * DEVICES
    assert incremental.stdout == full.stdout
    assert "+  ip address 192.168.10.114/24" in incremental.stdout


@pytest.fixture
def bare_base(repo: Path) -> Path:
    """`repo` whose HEAD holds no hash file (as .gitignore keeps it out of real repositories)."""
    git(repo, "rm", "-q", f"rendered/{HASHES}")
    git(repo, "commit", "-qm", "no hashes")
    return repo


def test_diff_against_a_base_without_hashes_reuses_the_working_trees(
    bare_base: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    repo = bare_base
    render()  # the working tree's rendered/ has them again
    replace_in(repo / "intent/aus1/devices.yaml", *LF4_MGMT)
    done = Noted(tmp_path / "noted.log", monkeypatch)
    incremental = runner.invoke(app, ["diff", "--base", "HEAD", "-j", "1"])
    # the changed device on the working tree's side only: its base model is the one the
    # working tree's rendered/ still holds, as is every other base device
    assert done() == ["rendered/aus1/aus1-lf4.cfg"]
    full = runner.invoke(app, ["diff", "--base", "HEAD", "-j", "1", "--full"])
    assert incremental.stdout == full.stdout
    assert "1 changed, 0 added, 0 removed, 33 unchanged" in incremental.stdout


def test_diff_renders_a_base_device_the_working_trees_hashes_do_not_hold(
    bare_base: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    replace_in(bare_base / "intent/aus1/devices.yaml", *LF4_MGMT)
    render()  # rendered/ now holds the changed lf4, not the base's
    done = Noted(tmp_path / "noted.log", monkeypatch)
    incremental = runner.invoke(app, ["diff", "--base", "HEAD", "-j", "1"])
    # one device rendered: the base's lf4, in the base's temporary checkout
    [rendered] = done()
    assert "/meetme-diff-" in rendered and rendered.endswith("/rendered/aus1/aus1-lf4.cfg")
    full = runner.invoke(app, ["diff", "--base", "HEAD", "-j", "1", "--full"])
    assert incremental.stdout == full.stdout
    assert "+  ip address 192.168.10.114/24" in incremental.stdout


def test_compiled_templates_are_kept_per_code_and_other_codes_are_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A compiled template holds the rendering options and folded filter results as well as
    its source: it is kept in a folder named by the code and Jinja2 release, and the compiled
    files of other code go (only those: a file of the user's in such a folder stays)."""
    from meetme.generators import render as rendering

    monkeypatch.setenv("MEETME_CACHE_DIR", str(tmp_path / "mine"))
    legacy = tmp_path / "mine/jinja2"
    legacy.mkdir(parents=True, mode=0o700)
    (legacy / "__jinja2_0123abcd.cache").write_bytes(b"old")
    (legacy / "notes.txt").write_text("the user's\n")
    other = tmp_path / "mine" / ("jinja2-" + "0" * 24)
    other.mkdir(mode=0o700)
    (other / "__jinja2_4567.cache").write_bytes(b"other code")
    cache = rendering._bytecode_cache()
    assert cache is not None
    stamp = rendering._compile_stamp()
    assert sorted(p.name for p in (tmp_path / "mine").iterdir()) == [
        "jinja2",
        f"jinja2-{stamp}",
    ]
    assert [p.name for p in legacy.iterdir()] == ["notes.txt"]
    rendering._compile_stamp.cache_clear()
    monkeypatch.setattr(rendering.jinja2, "__version__", "3.1.99")
    try:
        assert rendering._compile_stamp() != stamp  # a Jinja2 release of its own folder
    finally:
        monkeypatch.undo()
        rendering._compile_stamp.cache_clear()


def test_a_template_digest_is_of_the_text_jinja2_reads(tmp_path: Path) -> None:
    """The content hashes digest templates without Jinja2 (generators/sources.py): the digest
    must be of exactly what Jinja2's loader reads, CRLF line ends included, and follow an
    edit made between runs; a name Jinja2 finds nothing for is absent."""
    import jinja2
    from meetme.generators.sources import ABSENT, settled, template_digest

    folder = tmp_path / "arista_eos"
    folder.mkdir()
    (folder / "a.j2").write_bytes(b"hostname x\r\nend\r\n")
    (folder / "d.j2").mkdir()
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(folder)))
    source = env.loader.get_source(env, "a.j2")[0] if env.loader else ""
    assert source == "hostname x\nend\n"
    digest = template_digest("arista_eos", tmp_path, "a.j2")
    assert digest == hashlib.sha256(b"hostname x\nend\n").hexdigest()
    with settled():
        assert template_digest("arista_eos", tmp_path, "a.j2") == digest
        (folder / "a.j2").write_text("hostname y\n")
        # a batch of devices renders with the templates as they were when it began
        assert template_digest("arista_eos", tmp_path, "a.j2") == digest
    assert template_digest("arista_eos", tmp_path, "a.j2") == (
        hashlib.sha256(b"hostname y\n").hexdigest()
    )
    for name in ("missing.j2", "d.j2", "../arista_eos/a.j2"):
        assert template_digest("arista_eos", tmp_path, name) == ABSENT
