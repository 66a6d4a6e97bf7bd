"""Where meetme may write, and how.

`render` replaces its output folder whole, so it must only ever replace a folder it wrote
itself: one that is absent, empty, or carries the marker `.meetme-rendered` listing exactly the
files meetme put there. Reports (`lint --output`, `schema --out`, `--journal`) never land in
the intent, the rendered folder or `.git`, never follow a symlink, and only overwrite a file
whose content is one meetme writes. Every check runs before anything is touched; every write
is atomic (a temporary sibling, then a rename), so a failure leaves the old bytes in place.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import hashlib
import json
import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from rich.console import Console

MARKER = ".meetme-rendered"
MARKER_HEADER = (
    "# meetme owns this folder: `meetme render` replaces it whole with the files listed "
    "below, and refuses to if it holds any other file."
)
# meetme's content hashes of the files it rendered (meetme/hashes.py): written with them and
# listed in the marker like them, but not a rendered file (`check` does not compare it).
HASHES = ".meetme-hashes.json"
OWNED = frozenset({MARKER, HASHES})
# Siblings a killed render can leave behind (the .gitignore names them too).
DEBRIS_KINDS = (".new-", ".old-")
SNIFF_LIMIT = 16 * 1024 * 1024  # a meetme report larger than this is not worth guessing about
_JOURNAL_KEYS = frozenset({"ts", "run", "command", "stage", "step", "status"})
_FINDING_KEYS = frozenset({"rule", "severity", "message", "file", "line", "column", "path"})
_SUMMARY = re.compile(r"\d+ error\(s\), \d+ warning\(s\)(, \d+ info)?(, \d+ waived)?")
_JUNIT_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="meetme lint"'


class Refused(Exception):
    """meetme will not write to `path`, for `reason`; nothing was touched (exit 2)."""

    def __init__(self, path: Path | str, reason: str, verb: str = "write") -> None:
        self.path = str(path)
        self.reason = reason
        super().__init__(f"refusing to {verb} {self.path}: {reason}")


class FileFault(Exception):
    """The operating system refused to read or write `path` (exit 2, no traceback)."""

    def __init__(self, verb: str, path: Path | str, reason: str) -> None:
        self.verb = verb
        self.path = str(path)
        self.reason = reason
        super().__init__(f"cannot {verb} {self.path}: {reason}")


@contextmanager
def writing(path: Path | str) -> Iterator[None]:
    """Report any OSError inside as a failure to write `path`, the name the user knows."""
    try:
        yield
    except OSError as exc:
        raise FileFault("write", path, exc.strerror or str(exc)) from exc


@contextmanager
def reading(path: Path | str) -> Iterator[None]:
    try:
        yield
    except OSError as exc:
        raise FileFault("read", path, exc.strerror or str(exc)) from exc


class PipeConsole(Console):
    """A rich console for which a closed pipe is an error like any other (exit 2, one line),
    not rich's silent exit 1, which meetme uses for findings. No emoji codes: rich would print
    `devices.yaml:100:15` as `devices.yaml💯15` (`:100:` and `:1234:` are emoji names)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("emoji", False)
        super().__init__(*args, **kwargs)

    def on_broken_pipe(self) -> None:
        self.quiet = True
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second failure
        raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))

    def _check_buffer(self) -> None:
        """rich empties its buffer only after a write and flush that succeeded: text that could
        not be written (a full disk) stayed behind and came out first at the console's next
        print, in front of another command's output when the commands share a process (the
        consoles live as long as the module)."""
        try:
            super()._check_buffer()
        except OSError:
            del self._buffer[:]
            raise


# --- the render folder ----------------------------------------------------------------------


def marker_text(files: Iterable[str]) -> str:
    """The marker: the header, then every file meetme writes into the folder, sorted."""
    return "".join(f"{line}\n" for line in [MARKER_HEADER, *sorted(files)])


def check_render_target(out_dir: Path, intent_dir: Path | None) -> None:
    """Refuse (raise Refused) unless `out_dir` may be replaced whole by a render."""
    with reading(out_dir):
        if _plain_folder(out_dir, intent_dir):
            stray = first_stray(out_dir)
            if stray is not None:
                raise Refused(out_dir, stray)


def check_compare_target(out_dir: Path, intent_dir: Path | None) -> None:
    """What `check` compares must be a folder render could write: a file meetme did not write
    in a marked folder is drift (stale), but an unmarked folder is not meetme's at all."""
    with reading(out_dir):
        if _plain_folder(out_dir, intent_dir, "check") and read_manifest(out_dir) is None:
            stray = first_stray(out_dir)
            if stray is not None:
                raise Refused(out_dir, stray, "check")


def _plain_folder(out_dir: Path, intent_dir: Path | None, verb: str = "write") -> bool:
    """Refuse a symlink, a file, a repository, the intent or .git; True if the folder exists."""
    try:
        _refuse_git_inside(out_dir)
        if intent_dir is not None:
            _refuse_intent_overlap(out_dir, intent_dir)
        mode = _lstat_mode(out_dir)
        if mode is None:
            _require_folder_parent(out_dir)
            return False
    except Refused as refused:
        raise Refused(out_dir, refused.reason, verb) from None
    if stat.S_ISLNK(mode):
        raise Refused(out_dir, "it is a symbolic link; meetme replaces only a real folder", verb)
    if not stat.S_ISDIR(mode):
        raise Refused(out_dir, "it is a file, not a folder", verb)
    if os.path.lexists(out_dir / ".git"):
        raise Refused(out_dir, "it holds .git: it is a repository, not an output folder", verb)
    return True


def first_stray(folder: Path) -> str | None:
    """Why `folder` is not meetme's own to replace, or None when it is (empty, or marked
    and holding only files its marker lists; files it lists may be missing)."""
    with os.scandir(folder) as found:
        if not any(found):
            return None
    listed = read_manifest(folder)
    if listed is None:
        return (
            f"it is not empty and has no {MARKER} marker, so meetme did not write it "
            "(if an older meetme did, delete the folder and render again)"
        )
    for relative, regular in folder_entries(folder):
        if relative == MARKER:
            continue
        if not regular:
            return f"it holds {relative}, which is not a regular file meetme wrote"
        if relative not in listed:
            return f"it holds {relative}, which meetme did not write (not in {MARKER})"
    # a folder is meetme's only as the place of a file it lists: an empty folder of the
    # user's own (rendered/aus1/drafts) would go with the swap
    made = {str(parent) for name in listed for parent in PurePosixPath(name).parents}
    for relative in _subfolders(folder):
        if relative not in made:
            return f"it holds the folder {relative}/, which meetme did not make"
    return None


def _subfolders(folder: Path, prefix: str = "") -> Iterator[str]:
    """The relative path of every folder below `folder`, never following links."""
    with os.scandir(folder) as found:
        for entry in sorted(found, key=lambda e: e.name):
            if entry.is_dir(follow_symlinks=False):
                relative = f"{prefix}{entry.name}"
                yield relative
                yield from _subfolders(Path(entry.path), f"{relative}/")


def read_manifest(folder: Path) -> set[str] | None:
    """The files the marker lists, or None if there is no marker of meetme's."""
    marker = folder / MARKER
    mode = _lstat_mode(marker)
    if mode is None or not stat.S_ISREG(mode) or marker.stat().st_size > SNIFF_LIMIT:
        return None
    lines = marker.read_bytes().decode("utf-8", "replace").split("\n")
    if not lines or lines[0] != MARKER_HEADER:
        return None
    return {line for line in lines[1:] if line}


def folder_entries(folder: Path, prefix: str = "") -> Iterator[tuple[str, bool]]:
    """(relative path, is a regular file) of everything but folders, never following links."""
    with os.scandir(folder) as found:
        for entry in sorted(found, key=lambda e: e.name):
            relative = f"{prefix}{entry.name}"
            if entry.is_dir(follow_symlinks=False):
                yield from folder_entries(Path(entry.path), f"{relative}/")
            else:
                yield relative, entry.is_file(follow_symlinks=False)


def output_file(out_dir: Path, relative: str) -> Path:
    """`out_dir / relative`, refusing a name that would land outside it or break the marker."""
    parts = PurePosixPath(relative).parts
    unsafe = (
        not parts
        or PurePosixPath(relative).is_absolute()
        or any(p in ("", ".", "..") for p in parts)
        or relative in OWNED
        or any(not c.isprintable() or c == "\\" for c in relative)  # one manifest line
    )
    if unsafe:
        raise Refused(out_dir / relative, "not a plain file name inside the output folder")
    return out_dir / relative


def write_folder(
    out_dir: Path, files: Mapping[str, str], intent_dir: Path | None, hashes: str | None = None
) -> int:
    """Write `files` (relative name -> text), the marker and the `hashes` file (HASHES) into a
    staging sibling, then swap it in place of `out_dir`. Before the swap `out_dir` is
    untouched; after it, complete. A file whose bytes `out_dir` already holds is hard-linked
    from there, not written: it keeps its inode and time. Returns how many files were written
    anew (0: the folder already held exactly this, and it was left alone)."""
    check_render_target(out_dir, intent_dir)
    for name in files:
        output_file(out_dir, name)
    extra = {HASHES: hashes} if hashes is not None else {}
    owned = {MARKER: marker_text([*files, *extra]), **extra}
    with writing(out_dir):
        remove_debris(out_dir)
        if _holds_exactly(out_dir, {**files, **owned}):
            return 0
        made = _make_parents(out_dir.parent)
        try:
            return _stage_and_swap(out_dir, files, owned)
        except BaseException:
            for folder in reversed(made):
                _quietly_rmdir(folder)
            raise


def _stage_and_swap(out_dir: Path, files: Mapping[str, str], owned: Mapping[str, str]) -> int:
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.new-", dir=out_dir.parent))
    written = 0
    try:
        # before any file: one made in a setgid folder takes the folder's group
        _keep_access(out_dir, staging, writable=True)
        # the marker first: a staging folder of a killed run is then recognisably ours
        marker = owned[MARKER].encode("utf-8")
        if not _link_same(out_dir / MARKER, staging / MARKER, marker):
            create_file(staging / MARKER, marker)
        for name in sorted(files):
            target = output_file(staging, name)
            target.parent.mkdir(parents=True, exist_ok=True)
            data = files[name].encode("utf-8")
            if not _link_same(out_dir / name, target, data):
                create_file(target, data)
                written += 1
        for name, text in owned.items():
            data = text.encode("utf-8")
            if name != MARKER and not _link_same(out_dir / name, staging / name, data):
                create_file(staging / name, data)
        _keep_access(out_dir, staging)
        swap_in(staging, out_dir)
    finally:
        if os.path.lexists(staging):
            shutil.rmtree(staging, ignore_errors=True)
    return written


def _keep_access(out_dir: Path, staging: Path, writable: bool = False) -> None:
    """The folder that replaces `out_dir` keeps the access its owner gave it (a 700 folder
    stays private, a setgid group folder keeps its group); a new one gets what mkdir would.
    `writable`: and this process may still write into it (while it is being filled)."""
    try:
        info = os.stat(out_dir, follow_symlinks=False)
    except FileNotFoundError:
        mode = 0o777 & ~_umask()
    else:
        mode = stat.S_IMODE(info.st_mode)
        with contextlib.suppress(PermissionError):  # a group we are not in: the mode holds
            os.chown(staging, -1, info.st_gid)
    os.chmod(staging, mode | (stat.S_IRWXU if writable else 0))


def _link_same(old: Path, new: Path, data: bytes) -> bool:
    """Hard-link `old` (a regular file of the folder being replaced) to `new` when it holds
    exactly `data`; False when it does not, or the filesystem cannot link."""
    mode = _lstat_mode(old)
    if mode is None or not stat.S_ISREG(mode) or not _same_bytes(old, data):
        return False
    try:
        os.link(old, new, follow_symlinks=False)
    except OSError:
        return False
    return True


def _holds_exactly(out_dir: Path, wanted: Mapping[str, str]) -> bool:
    """Whether `out_dir` holds exactly these regular files with exactly these bytes."""
    if not out_dir.is_dir():
        return False
    present = dict(folder_entries(out_dir))
    if set(present) != set(wanted) or not all(present.values()):
        return False
    return all(_same_bytes(out_dir / n, t.encode("utf-8")) for n, t in wanted.items())


def _same_bytes(path: Path, expected: bytes) -> bool:
    # the size first: a huge file in rendered/ is never read into memory
    return path.stat().st_size == len(expected) and path.read_bytes() == expected


def swap_in(staging: Path, out_dir: Path) -> None:
    """Put `staging` where `out_dir` is; `out_dir` (already checked to be ours) goes."""
    if not os.path.lexists(out_dir):
        os.rename(staging, out_dir)
        return
    if exchange(staging, out_dir):
        shutil.rmtree(staging, ignore_errors=True)  # it now holds the old folder
        return
    # Fallback only where renameat2(RENAME_EXCHANGE) is unavailable (not Linux, an old kernel,
    # a filesystem without it): a kill between these two renames leaves `out_dir` missing.
    retired = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.old-", dir=out_dir.parent))
    os.rename(out_dir, retired)  # rename(2) may replace an empty folder
    os.rename(staging, out_dir)
    shutil.rmtree(retired, ignore_errors=True)


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_NO_EXCHANGE = frozenset({errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP})


def exchange(first: Path, second: Path) -> bool:
    """Swap two paths atomically with Linux renameat2(RENAME_EXCHANGE): at every instant
    both names exist. False when the platform, kernel or filesystem cannot."""
    try:
        renameat2: Any = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    renameat2.restype = ctypes.c_int
    done = renameat2(
        _AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE
    )
    if done == 0:
        return True
    code = ctypes.get_errno()
    if code in _NO_EXCHANGE:
        return False
    raise OSError(code, os.strerror(code), str(second))


def remove_debris(out_dir: Path) -> None:
    """Remove staging and retired siblings of killed renders: only those that are empty or
    carry meetme's marker and nothing else (a user's folder of that name stays)."""
    prefixes = tuple(f".{out_dir.name}{kind}" for kind in DEBRIS_KINDS)
    if not out_dir.parent.is_dir():
        return
    with os.scandir(out_dir.parent) as found:
        debris = [Path(e.path) for e in found if e.name.startswith(prefixes)]
    for path in debris:
        mode = _lstat_mode(path)
        if mode is not None and stat.S_ISDIR(mode) and first_stray(path) is None:
            shutil.rmtree(path, ignore_errors=True)


def create_file(path: Path, data: bytes) -> None:
    """A new file (never through a symlink, never over an existing one) holding `data`."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(path, flags, 0o666)
    try:
        _write_all(fd, data)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


# --- report files ---------------------------------------------------------------------------


def check_report_path(
    path: Path, protected: Mapping[str, Path], ours: Callable[[Path], bool]
) -> None:
    """Refuse `-`, a report path inside a `protected` folder (label -> folder) or `.git`, a
    symlink, a folder, or an existing file whose content `ours` does not recognise."""
    if str(path) == "-":  # the common spelling of standard output, which a path is not here
        raise Refused(
            path,
            "it would be a file named -, not standard output; leave the option "
            "out to print to standard output",
        )
    with reading(path):
        where = path.parent.resolve() / path.name  # the last step is checked, not followed
        if ".git" in where.parts:
            raise Refused(path, "it is inside .git")
        for label, folder in protected.items():
            inside = folder.resolve()
            if where == inside or inside in where.parents:
                raise Refused(path, f"it is inside {label} {folder}")
        mode = _lstat_mode(path)
        if mode is None:
            _require_folder_parent(path)
            return
        if stat.S_ISLNK(mode):
            raise Refused(path, "it is a symbolic link")
        if stat.S_ISDIR(mode):
            raise Refused(path, "it is a folder")
        if not stat.S_ISREG(mode):
            raise Refused(path, "it is not a regular file")
        if not ours(path):
            raise Refused(path, "it exists and meetme did not write it; move it or pick a new name")


def write_file(path: Path, text: str) -> None:
    """Replace `path` atomically: a temporary file in its folder, then a rename; on failure
    the temporary file and any folder made for it are removed."""
    with writing(path):
        made = _make_parents(path.parent)
        try:
            fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
            try:
                try:
                    os.fchmod(fd, 0o666 & ~_umask())  # mkstemp's 0600 is for secrets
                    _write_all(fd, text.encode("utf-8"))
                finally:
                    os.close(fd)
                os.replace(temporary, path)
            except BaseException:
                _quietly_unlink(temporary)
                raise
        except BaseException:
            for folder in reversed(made):
                _quietly_rmdir(folder)
            raise


def is_lint_report(path: Path) -> bool:
    """A report `meetme lint` writes, in any of its formats: one this user's meetme wrote at
    this path and that is unchanged since (`remember_written`), an empty file, or one whose
    shape nobody else's file has (findings with exactly meetme's keys, meetme's SARIF tool,
    its JUnit document, its text report with a finding). A report with nothing in it (`[]`,
    a summary line alone) is recognised by the record only: a user's file may say as much."""
    text = _small_text(path)
    if text is None:
        return False
    if not text.strip() or written_here(path, text):
        return True
    if text.startswith(_JUNIT_HEAD):
        return _is_junit_report(text)
    parsed = _json(text)
    if isinstance(parsed, dict):  # SARIF: meetme's keys and tool, nothing of anyone else's
        return parsed.keys() == _SARIF_KEYS and _sarif_tool(parsed) == "meetme"
    if isinstance(parsed, list):
        return bool(parsed) and all(_is_finding(x) for x in parsed)
    return _is_text_report(text.rstrip("\n").splitlines())


def _is_finding(item: object) -> bool:
    """One finding of the JSON report: meetme's keys exactly (a waived one adds its waiver)."""
    if not isinstance(item, dict):
        return False
    keys = item.keys() - {"waiver"}
    return (
        keys == _FINDING_KEYS
        and item.get("severity") in _SEVERITIES
        and isinstance(item.get("rule"), str)
        and type(item.get("line")) is int
        and type(item.get("column")) is int
    )


def _is_junit_report(text: str) -> bool:
    """meetme's JUnit document: its header with every count, its suites, its closing tag."""
    lines = text.rstrip("\n").splitlines()
    return (
        len(lines) >= 3
        and _JUNIT_TOP.fullmatch(lines[1]) is not None
        and lines[-1] == "</testsuites>"
        and all(line.startswith("  ") for line in lines[2:-1])
    )


_FINDING_LINE = re.compile(r"  \d+:\d+ +(error|warning|info|waived) ")
_ANNOTATION = re.compile(r"::(error|warning|notice) ")
_SARIF_KEYS = frozenset({"$schema", "version", "runs"})
_SEVERITIES = frozenset({"error", "warning", "info", "waived"})
_JUNIT_TOP = re.compile(
    r'<testsuites name="meetme lint" tests="\d+" failures="\d+" errors="\d+" skipped="\d+">'
)


def _is_text_report(lines: list[str]) -> bool:
    """The text format line for line (a file's name, its findings, a blank line; the summary
    last) or the github one (annotations, the summary), with one finding at least: a file
    that merely ends in a summary line is someone's notes."""
    if len(lines) < 2 or _SUMMARY.fullmatch(lines[-1]) is None:
        return False
    body = lines[:-1]
    if all(_ANNOTATION.match(line) and "::" in line[2:] for line in body):
        return True
    heading, findings = True, 0
    for line in body:
        if heading:  # a file's name, flush left
            if not line or line[0].isspace():
                return False
            heading, findings = False, 0
        elif not line:  # the blank line closing a file's findings
            if not findings:
                return False
            heading = True
        elif _FINDING_LINE.match(line):
            findings += 1
        elif not (findings and line.startswith("    ")):  # else a waiver under its finding
            return False
    return heading


def remember_written(path: Path, text: str) -> None:
    """Record, in the user's private meetme folder, that meetme wrote `text` at `path`: what
    `written_here` asks before a report or schema is written over. No private folder: no
    record (a report with nothing in it is then refused, not overwritten)."""
    record = _written_record(path)
    if record is not None:
        with contextlib.suppress(OSError):
            write_file(record, _digest(text) + "\n")


def written_here(path: Path, text: str) -> bool:
    """Whether this user's meetme wrote exactly `text` at `path` last."""
    record = _written_record(path)
    if record is None:
        return False
    try:
        return record.read_text(encoding="ascii").strip() == _digest(text)
    except (OSError, ValueError):
        return False


def _written_record(path: Path) -> Path | None:
    from meetme.core.userdir import private_dir

    folder = private_dir("written")
    if folder is None:
        return None
    where = str(path.parent.resolve() / path.name)
    return folder / hashlib.sha256(where.encode("utf-8", "surrogateescape")).hexdigest()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _digest(text: str) -> str:
    return sha256(text.encode("utf-8", "surrogateescape"))


def is_schema(path: Path) -> bool:
    """What `meetme schema` writes (or an empty file)."""
    text = _small_text(path)
    if text is None:
        return False
    if not text.strip() or written_here(path, text):
        return True
    parsed = _json(text)
    return isinstance(parsed, dict) and str(parsed.get("title", "")).startswith("meetme intent")


def is_journal(path: Path) -> bool:
    """Empty, or JSON lines, each a journal record; a long journal is judged by its first and
    last lines, and a last line cut short by a kill is ignored when a whole record comes
    first (a user's one line without a newline is no journal)."""
    size = path.stat().st_size
    with path.open("rb") as handle:
        if size <= SNIFF_LIMIT:
            lines = handle.read().split(b"\n")[:-1]
        else:
            head = handle.read(SNIFF_LIMIT // 2).split(b"\n")[:1]
            handle.seek(size - SNIFF_LIMIT // 2)
            lines = head + handle.read().split(b"\n")[1:-1][-1:]
    if size and not lines:
        return False
    return all(_is_record(line) for line in lines)


def _is_record(line: bytes) -> bool:
    record = _json(line.decode("utf-8", "replace"))
    return isinstance(record, dict) and record.keys() >= _JOURNAL_KEYS


# --- helpers --------------------------------------------------------------------------------


def _refuse_git_inside(path: Path) -> None:
    if ".git" in path.resolve().parts:
        raise Refused(path, "it is inside .git")


def _refuse_intent_overlap(out_dir: Path, intent_dir: Path) -> None:
    out, intent = out_dir.resolve(), intent_dir.resolve()
    if out == intent:
        raise Refused(out_dir, f"it is the intent folder {intent_dir}")
    if intent in out.parents:
        raise Refused(out_dir, f"it is inside the intent folder {intent_dir}")
    if out in intent.parents:
        raise Refused(out_dir, f"it holds the intent folder {intent_dir}")


def _require_folder_parent(path: Path) -> None:
    """The nearest existing ancestor of a path to create must be a folder."""
    for ancestor in path.parents:
        if os.path.lexists(ancestor):
            if not ancestor.is_dir():
                raise Refused(path, f"{ancestor} is not a folder")
            return


def _lstat_mode(path: Path) -> int | None:
    try:
        return os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):  # absent, or under a file
        return None


def _small_text(path: Path) -> str | None:
    """The file's text, or None when it is larger than any report meetme writes."""
    if path.stat().st_size > SNIFF_LIMIT:
        return None
    return path.read_bytes().decode("utf-8", "replace")


def _json(text: str) -> object:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _sarif_tool(parsed: dict[str, Any]) -> object:
    runs = parsed.get("runs")
    if not isinstance(runs, list) or not runs or not isinstance(runs[0], dict):
        return None
    tool = runs[0].get("tool")
    driver = tool.get("driver") if isinstance(tool, dict) else None
    return driver.get("name") if isinstance(driver, dict) else None


def _make_parents(folder: Path) -> list[Path]:
    """Create `folder` and its missing ancestors; return the ones made, outermost first
    (on failure, the ones made so far are removed again)."""
    missing = [p for p in (folder, *folder.parents) if not os.path.lexists(p)]
    made: list[Path] = []
    try:
        for path in reversed(missing):
            os.mkdir(path)
            made.append(path)
    except BaseException:
        for path in reversed(made):
            _quietly_rmdir(path)
        raise
    return made


def _quietly_unlink(path: str) -> None:
    with suppress(OSError):
        os.unlink(path)


def _quietly_rmdir(path: Path) -> None:
    with suppress(OSError):
        os.rmdir(path)


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


@dataclass
class Drift:
    missing: list[str]  # would be written, not on disk
    extra: list[str]  # on disk, would not be written
    changed: list[str]

    @property
    def clean(self) -> bool:
        return not (self.missing or self.extra or self.changed)


def compare_rendered(out_dir: Path, files: dict[str, str]) -> Drift:
    """What differs between `out_dir` and `files`; meetme's marker and hashes are not. Links
    and special files are never followed or read: they differ from any rendered file."""
    on_disk: dict[str, bool] = {}  # relative name -> a regular file
    if out_dir.is_dir():
        on_disk = {name: regular for name, regular in folder_entries(out_dir) if name not in OWNED}
    missing = sorted(set(files) - set(on_disk))
    extra = sorted(set(on_disk) - set(files))
    changed = sorted(
        name
        for name in set(files) & set(on_disk)
        if not (on_disk[name] and _same_bytes(out_dir / name, files[name].encode("utf-8")))
    )
    return Drift(missing, extra, changed)
