"""A small mutation tester for the design-standard rules (docs/mutation.md; not a CI step).

One mutant is one AST-level change to one module: a comparison operator swapped
(< <=, > >=, == !=, in / not in, is / is not), an integer constant moved by one (n-1, n+1) or
`and` swapped with `or`. The run measures a snapshot of the checkout laid out as pip installs it
(meetme.validators <- validators/), so others may keep editing the checkout meanwhile.

The parent process imports pytest and meetme once, then runs the module's tests once with a line
tracer: which test executes which line of the rule modules. Each mutant runs in a forked child
that executes the mutated source in place of the loaded module (rebinding the names other
modules imported from it) and runs, with -x, only the tests that execute the mutated lines (every
test of the module for a mutant outside any function). A failure kills the mutant; a mutant no
test reaches, or that every test passes, survives.

    python tests/mutation.py                      # every module of validators/rules
    python tests/mutation.py edge addr            # some modules
    python tests/mutation.py --list edge          # the mutants, without running them
    python tests/mutation.py --only edge:12 edge  # one mutant (index from the report)

Exit status: 0 when the score is at least --min-score (default 90), else 1.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import os
import shutil
import signal
import sys
import tempfile
import time
import types
from collections.abc import Callable, Iterator
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

CHECKOUT = Path(__file__).resolve().parent.parent
LAYERS = {
    "meetme": "meetme",
    "generators": "meetme/generators",
    "validators": "meetme/validators",
    "templates": "meetme/templates",
    "deploy": "meetme/deploy",
}  # pyproject's package-dir
COPIED = ("tests", "intent", "docs", "pyproject.toml")  # what the tests read besides the code
# set by `snapshot`: the installed-layout copy that the parent imports and the children mutate
REPO = CHECKOUT
# rule modules without a test file of their own -> the families whose tests exercise them
FAMILIES = {"cabling": ["cabling", "phy"], "ports": ["ports", "phy"], "peers": ["addr", "edge"]}
NOT_RULES = {"__init__", "catalogue"}  # nothing to mutate
PACKAGE = "meetme.validators.rules"
SOURCE_DIR = CHECKOUT / "validators" / "rules"
TIMEOUT = 120.0  # seconds; a mutant that loops forever is killed by the timeout
BASELINE_TIMEOUT = 3600.0  # the traced, unmutated run of every selected test file

SWAPS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
SYMBOL = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
}


@dataclass(frozen=True)
class Mutant:
    module: str
    index: int  # position in this module's list of mutants
    node: int  # position of the mutated node in ast.walk order
    kind: str  # "cmp", "int", "bool"
    detail: int  # cmp: which operator of the chain; int: the delta
    line: int
    end_line: int
    in_function: bool  # False: module level, run at import, so every test is affected
    rule: str | None  # the id of the rule whose check function holds the mutant
    description: str

    @property
    def name(self) -> str:
        return f"{self.module}:{self.index}"


def snapshot(source: Path, into: Path) -> None:
    """Copy `source` (a checkout) into `into`, laid out as pip installs it, and import from it:
    a run measures one consistent tree even while others edit the checkout."""
    global REPO, SOURCE_DIR
    for folder, target in LAYERS.items():
        shutil.copytree(
            source / folder, into / target, ignore=shutil.ignore_patterns("__pycache__")
        )
    for name in COPIED:
        if (source / name).is_dir():
            shutil.copytree(
                source / name, into / name, ignore=shutil.ignore_patterns("__pycache__")
            )
        elif (source / name).exists():
            shutil.copy2(source / name, into / name)
    REPO = into
    SOURCE_DIR = into / "meetme" / "validators" / "rules"
    # ahead of the editable install's finder, which sits after the path finder in meta_path
    sys.path[:0] = [str(into), str(into / "tests")]


def rule_modules() -> list[str]:
    return sorted(p.stem for p in SOURCE_DIR.glob("*.py") if p.stem not in NOT_RULES)


def tests_for(module: str) -> list[str]:
    """The family's test files (test_rules_*, then test_boundaries_*): only those, because a
    survivor runs all of them and a lint of the example costs about 0.1 s."""
    families = FAMILIES.get(module, [module])
    files = [
        f"tests/test_{kind}_{name}.py" for kind in ("rules", "boundaries") for name in families
    ]
    return [f for f in files if (REPO / f).exists()]


def _function_lines(tree: ast.AST) -> list[tuple[int, int]]:
    return [
        (node.lineno, node.end_lineno or node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
    ]


def _rule_lines(tree: ast.Module) -> list[tuple[int, int, str]]:
    """(first, last, rule id) of every function registered with @rule("ID", ...)."""
    found = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                if (
                    isinstance(decorator, ast.Call)
                    and isinstance(decorator.func, ast.Name)
                    and decorator.func.id == "rule"
                    and decorator.args
                    and isinstance(decorator.args[0], ast.Constant)
                ):
                    last = node.end_lineno or node.lineno
                    found.append((node.lineno, last, str(decorator.args[0].value)))
    return found


def mutants_of(module: str) -> list[Mutant]:
    tree = ast.parse((SOURCE_DIR / f"{module}.py").read_text())
    functions = _function_lines(tree)
    rules = _rule_lines(tree)
    found: list[Mutant] = []

    def add(index: int, node: ast.expr, kind: str, detail: int, text: str) -> None:
        end = node.end_lineno or node.lineno
        inside = any(first < node.lineno and end <= last for first, last in functions)
        rule = next((r for first, last, r in rules if first <= node.lineno <= last), None)
        found.append(
            Mutant(module, len(found), index, kind, detail, node.lineno, end, inside, rule, text)
        )

    for index, node in enumerate(ast.walk(tree)):
        if isinstance(node, ast.Compare):
            for position, op in enumerate(node.ops):
                text = f"{SYMBOL[type(op)]} -> {SYMBOL[SWAPS[type(op)]]}"
                add(index, node, "cmp", position, text)
        elif isinstance(node, ast.BoolOp):
            add(
                index, node, "bool", 0, "and -> or" if isinstance(node.op, ast.And) else "or -> and"
            )
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, int)
            and not isinstance(node.value, bool)
        ):
            for delta in (-1, 1):
                add(index, node, "int", delta, f"{node.value} -> {node.value + delta}")
    return found


def mutated_code(mutant: Mutant) -> types.CodeType:
    path = SOURCE_DIR / f"{mutant.module}.py"
    tree = ast.parse(path.read_text())
    for node_index, node in enumerate(ast.walk(tree)):
        if node_index != mutant.node:
            continue
        if mutant.kind == "cmp":
            assert isinstance(node, ast.Compare)
            ops = list(node.ops)
            ops[mutant.detail] = SWAPS[type(ops[mutant.detail])]()
            node.ops = ops
        elif mutant.kind == "bool":
            assert isinstance(node, ast.BoolOp)
            node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        else:
            assert isinstance(node, ast.Constant)
            node.value = node.value + mutant.detail
        break
    return compile(tree, str(path), "exec")


def install(mutant: Mutant) -> None:
    """Replace the loaded module's contents with the mutant's (in this process only)."""
    from meetme.validators.engine import RULES

    name = f"{PACKAGE}.{mutant.module}"
    module = sys.modules[name]
    before = dict(vars(module))
    for rule_id in [i for i, r in RULES.items() if r.check.__module__ == name]:
        del RULES[rule_id]  # the mutated source registers them again
    exec(mutated_code(mutant), vars(module))
    renamed = {
        id(old): vars(module)[key]
        for key, old in before.items()
        if getattr(old, "__module__", None) == name and vars(module).get(key) is not old
    }
    for other in list(sys.modules.values()):
        if other is None or not other.__name__.startswith("meetme") or other is module:
            continue
        for key, value in list(vars(other).items()):
            if id(value) in renamed:
                setattr(other, key, renamed[id(value)])


class _Baseline:
    """A pytest plugin for the unmutated run: the tests that fail, and the lines of the rule
    modules each test executes."""

    def __init__(self) -> None:
        self.failed: list[str] = []
        self.lines: dict[str, list[tuple[str, int]]] = {}
        self.folder = str(SOURCE_DIR) + os.sep

    def pytest_runtest_logreport(self, report: Any) -> None:
        if report.failed:
            self.failed.append(report.nodeid)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: Any) -> Iterator[None]:
        seen: set[tuple[str, int]] = set()

        def local(frame: types.FrameType, event: str, arg: object) -> Any:
            if event == "line":
                seen.add((Path(frame.f_code.co_filename).stem, frame.f_lineno))
            return local

        def calls(frame: types.FrameType, event: str, arg: object) -> Any:
            return local if frame.f_code.co_filename.startswith(self.folder) else None

        sys.settrace(calls)
        try:
            return (yield)
        finally:
            sys.settrace(None)
            self.lines[item.nodeid] = sorted(seen)


def _fork(work: Callable[[], int], timeout: float = TIMEOUT) -> str:
    """Run `work` in a forked child: 'killed' (non-zero exit), 'survived' or 'timeout'."""
    child = os.fork()
    if child == 0:
        status = 1
        try:
            os.chdir(REPO)
            with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
                status = work()
        except BaseException:
            status = 3  # e.g. the mutant broke the import: the suite would fail
        finally:
            os._exit(status)
    deadline = time.monotonic() + timeout
    while True:
        done, wait_status = os.waitpid(child, os.WNOHANG)
        if done:
            return "survived" if os.waitstatus_to_exitcode(wait_status) == 0 else "killed"
        if time.monotonic() > deadline:
            os.kill(child, signal.SIGKILL)
            os.waitpid(child, 0)
            return "timeout"
        time.sleep(0.02)


@dataclass
class Baseline:
    failed: list[str]  # failing without any mutant: someone's work in progress, left out
    lines: dict[str, set[tuple[str, int]]]  # test id -> (module, line) it executes
    order: list[str]  # every passing test id, in run order


def baseline(tests: list[str]) -> Baseline | None:
    with tempfile.TemporaryDirectory() as folder:
        record = Path(folder) / "baseline.json"

        def work() -> int:
            plugin = _Baseline()
            pytest.main(["-q", "-p", "no:cacheprovider", *tests], plugins=[plugin])
            record.write_text(json.dumps({"failed": plugin.failed, "lines": plugin.lines}))
            return 0

        _fork(work, timeout=BASELINE_TIMEOUT)
        if not record.exists():
            return None
        data = json.loads(record.read_text())
    failed = list(data["failed"])
    lines = {test: {(m, n) for m, n in found} for test, found in data["lines"].items()}
    order = [test for test in lines if test not in failed]
    return Baseline(failed, lines, order)


def selected(mutant: Mutant, base: Baseline, tests: list[str]) -> list[str]:
    """The passing tests of the module's files that reach the mutant; first the tests named
    after its rule (test_edge002_...), then the example's, which usually kill it soonest."""
    files = tuple(f"{t}::" for t in tests)
    mine = [t for t in base.order if t.startswith(files)]
    if mutant.in_function:
        span = {(mutant.module, n) for n in range(mutant.line, mutant.end_line + 1)}
        mine = [t for t in mine if base.lines[t] & span]
    named = (mutant.rule or "").replace("-", "").lower() or None

    def rank(test: str) -> int:
        name = test.split("::")[-1]
        return 0 if named and named in name else 1 if "example" in name else 2

    return sorted(mine, key=rank)


def run_mutant(mutant: Mutant, tests: list[str]) -> str:
    def work() -> int:
        install(mutant)
        return int(pytest.main(["-x", "-q", "-p", "no:cacheprovider", *tests]))

    return _fork(work)


def _source_line(mutant: Mutant) -> str:
    lines = (SOURCE_DIR / f"{mutant.module}.py").read_text().splitlines()
    return lines[mutant.line - 1].strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*")
    parser.add_argument("--list", action="store_true", help="print the mutants only")
    parser.add_argument("--only", action="append", default=[], help="MODULE:INDEX to run")
    parser.add_argument("--min-score", type=float, default=90.0)
    parser.add_argument("--repo", type=Path, default=CHECKOUT, help="checkout to measure")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="meetme-mutation-") as folder:
        snapshot(options.repo.resolve(), Path(folder))
        return _run(options)


def _run(options: argparse.Namespace) -> int:
    os.environ.setdefault("PYTHONHASHSEED", "0")

    modules = options.modules or rule_modules()
    chosen = [m for module in modules for m in mutants_of(module)]
    if options.only:
        chosen = [m for m in chosen if m.name in options.only]
    if options.list:
        for m in chosen:
            print(f"{m.name:12} {m.module}.py:{m.line:<5} {m.description:14} {_source_line(m)}")
        return 0

    try:  # imports and registers every rule once, in the parent
        import meetme.pipeline
    except ImportError as error:
        print(f"the tree does not import ({error}); measure a consistent one (--repo)")
        return 2
    assert Path(meetme.pipeline.__file__).is_relative_to(REPO), meetme.pipeline.__file__

    files = sorted({t for m in modules for t in tests_for(m)})
    base = baseline(files)
    if base is None:
        print(f"the unmutated test run crashed: {' '.join(files)}")
        return 2
    for test in base.failed:
        print(f"left out: {test} fails without any mutant")

    counts = {"killed": 0, "survived": 0, "timeout": 0, "unreached": 0}
    started = time.monotonic()
    for m in chosen:
        tests = selected(m, base, tests_for(m.module))
        outcome = run_mutant(m, tests) if tests else "unreached"
        counts[outcome] += 1
        if outcome in ("survived", "unreached"):
            where = f"{m.module}.py:{m.line}"
            print(f"{outcome:9} {m.name:13} {where:18} {m.description:15} {_source_line(m)}")
            sys.stdout.flush()
    total = len(chosen)
    killed = counts["killed"] + counts["timeout"]
    score = 100.0 * killed / total if total else 100.0
    minutes = (time.monotonic() - started) / 60
    print(
        f"mutants {total}  killed {counts['killed']}  timeout {counts['timeout']}  "
        f"survived {counts['survived']}  unreached {counts['unreached']}  "
        f"score {score:.1f} %  ({minutes:.1f} min)"
    )
    return 0 if score >= options.min_score else 1


if __name__ == "__main__":
    sys.exit(main())
