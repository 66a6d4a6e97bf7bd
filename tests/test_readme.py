"""Every example in README.md, docs/adoption.md and docs/push.md is true of the shipped repository,
and so is every command of docs/dci.md, docs/srv6.md and docs/twin.md a machine without root
can run.

Commands. Each fenced `sh` block, and each inline `meetme ...` span of README.md that names no
placeholder, runs in document order, through the real CLI, in a private copy of the repository
(intent/, rendered/, inventory.yaml, and a git history whose HEAD~1 and origin/main exist, as in
a team's clone). Installs, the test suite itself and pre-commit are not run here: CI runs the two
newcomer commands verbatim (.ci/run) and tests/test_adoption.py runs `pre-commit try-repo`.
`meetme twin` needs root and FRR: tests/test_twin_integration.py runs it, not this test. A
`python -c` snippet runs as a process of its own from the copy's root, and prints what the page
says it prints.
`export NAME=...` means "the value you supply": it sets NAME, and every variable the command
before it named, to a made-up value. What each command must do is what the docs say:
every `meetme` command exits 0 on the example, except `plan` and `push`, which exit 2 naming
every secret the run needs until those are set, and then, the lab devices being unreachable
(connections to them are refused here, whatever the network), exit 1 with every device failed
at connect (plan) or wave 1 failed and every later wave skipped (push).

YAML blocks, by their top-level keys:
- intent (organisation, sites, waivers, standards): (a) every key is one the intent schema has at
  that place; (b) every value shown for something the shipped example also has equals the
  example's; (c) a block with nothing elided (no `…`) is valid as an intent file against
  `meetme schema`; (d) in README.md, what a block shows beyond the example, added to it as a
  file of its own, still lints without errors.
- inventory (settings, credentials, devices): it loads; its settings are the defaults it claims;
  a device the shipped inventory has agrees with it.
- pre-commit configuration (repos) and a GitLab CI job: their hooks exist, their `meetme`
  commands parse, and the version they install (`rev`, `@ref`) is `main` or a tag of this
  repository — never a tag that does not exist.
"""

from __future__ import annotations

import errno
import ipaddress
import json
import re
import shlex
import shutil
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import typer
import yaml
from meetme.deploy.inventory import Settings, load_inventory
from typer.testing import CliRunner

from meetme.cli import app
from meetme.editor_schema import intent_schema
from meetme.pipeline import lint

REPO = Path(__file__).resolve().parent.parent
DOCS = ("README.md", "docs/adoption.md", "docs/push.md")
# Pages whose commands run too. Their YAML blocks are not the example's intent in part, as the
# DOCS' are: docs/dci.md's is a whole intent/dci.yaml (tests/test_dci_intent.py lints it),
# docs/srv6.md's a whole intent/srv6.yaml (test_the_srv6_page_example_is_the_shipped_domain
# below) and an NVUE rendering (tests/test_nvue_schema.py). docs/twin.md's `meetme twin`
# commands need root and FRR and are left out (run_block); its `python -c` plan snippet runs.
COMMAND_DOCS = (*DOCS, "docs/dci.md", "docs/srv6.md", "docs/twin.md")
# What a `python -c` snippet prints, as the page says it does (docs/twin.md, "What `up` builds").
SNIPPET_PRINTS = {"docs/twin.md": "46 routers in 80 namespaces\n"}
ELIDED = "…"
# Programs the docs show that this test does not run, and who runs them instead.
NOT_RUN_HERE = {
    "python3": "the newcomer's virtualenv: CI runs both newcomer commands verbatim (.ci/run)",
    ".": "activating that virtualenv",
    "pip": "installs: this suite runs in an install made the same way",
    "python": "`python -m pytest` is this very suite",
    "pre-commit": "tests/test_adoption.py runs `pre-commit try-repo` on the example",
}
# An inline span naming one of these is a syntax summary (the CLI table), not a command.
PLACEHOLDER = re.compile(r"\[|\||…|\.\.\.|^(REPO|FILE|DIR|REF|S|DEVICE|RULE)$")
# An inline placeholder with a value that makes the documented command runnable.
EXAMPLE_VALUES = {"ID": "EVPN-011"}
INTENT_KEYS = frozenset(intent_schema(partial=False)["properties"])
INVENTORY_KEYS = frozenset({"settings", "credentials", "devices"})
runner = CliRunner()


class Reader(yaml.SafeLoader):
    """YAML as meetme and the editors' language server read it: a date stays a string."""


Reader.yaml_implicit_resolvers = {
    first: [r for r in resolvers if r[0] != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def read_yaml(text: str) -> Any:
    return yaml.load(text, Loader=Reader)  # Reader is a SafeLoader


# ---- reading the docs ------------------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    doc: str
    line: int
    lang: str
    text: str

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.line}"


def fenced_blocks(doc: str) -> list[Block]:
    """Every fenced block of a Markdown file, with its language and first line."""
    text = (REPO / doc).read_text(encoding="utf-8")
    found = re.finditer(r"^( *)```(\w*)\n(.*?)^\1```", text, re.S | re.M)
    return [
        Block(doc, text.count("\n", 0, m.start()) + 2, m.group(2), textwrap.dedent(m.group(3)))
        for m in found
    ]


def inline_commands(doc: str) -> list[tuple[int, str]]:
    """README's inline `meetme ...` spans (outside fenced blocks) that are whole commands."""
    text = re.sub(  # blank out the fenced blocks, keeping the line numbers
        r"^( *)```.*?^\1```",
        lambda m: "\n" * m.group(0).count("\n"),
        (REPO / doc).read_text(encoding="utf-8"),
        flags=re.S | re.M,
    )
    spans = []
    for number, line in enumerate(text.splitlines(), start=1):
        for span in re.findall(r"`(meetme [^`]+)`", line):
            words = [EXAMPLE_VALUES.get(w, w) for w in span.split()]
            if not any(PLACEHOLDER.search(w) for w in words):
                spans.append((number, " ".join(words)))
    return spans


def command_lines(block: Block) -> list[list[str]]:
    """The commands of an `sh` block: comments dropped, `a && b` split; a quoted argument that
    spans lines (`python -c '...'`) is one word, as the shell reads it."""
    commands = []
    pending = ""
    for line in block.text.splitlines():
        pending += line + "\n"
        try:
            words = shlex.split(pending, comments=True)
        except ValueError:  # a quotation still open: the command goes on on the next line
            continue
        pending = ""
        while words:
            end = words.index("&&") if "&&" in words else len(words)
            commands.append(words[:end])
            words = words[end + 1 :]
    assert not pending, f"{block.where}: a quotation is never closed"
    return commands


# ---- running the commands --------------------------------------------------------------------


# a user's hash secrets as `openssl passwd -6` / `-5` print them (a push refuses another form)
SHA512_CRYPT = (
    "$6$Lab0salt$sWCxoi4s4cT7C00wXNnl/zkujOxOi9V7mAun7WtxqdRSQq4I0OhuIvYrFgHZPjy/9D9rSrMGP."
    "rK27iL0JPyj/"
)
SHA256_CRYPT = "$5$Lab0salt$OABYBFmG1QSa6AlQKIlptTXMEsGLa1tnpbjob5Qmn87"


def _made_up(variable: str) -> str:
    """What a reader exports for a named secret: the hash a user's line takes, else a key."""
    if variable.endswith("_HASH_SHA256"):
        return SHA256_CRYPT
    if variable.endswith("_HASH"):
        return SHA512_CRYPT
    return f"made-up-{variable.lower()}"


@dataclass
class Session:
    """A reader working through the docs in one copy of the repository."""

    root: Path
    monkeypatch: pytest.MonkeyPatch
    last_output: str = ""
    secrets_set: bool = False
    ran: list[str] = field(default_factory=list)

    def export(self, assignment: str) -> None:
        name, _, value = assignment.partition("=")
        assert value == "...", f"export {assignment}: the docs must not show a value"
        named = set(re.findall(r"export (MEETME_SECRET_\w+)", self.last_output))
        for variable in {name} | named:
            self.monkeypatch.setenv(variable, _made_up(variable))
        self.secrets_set = True

    def meetme(self, where: str, args: list[str]) -> None:
        result = runner.invoke(app, args)
        self.last_output = result.output
        self.ran.append(args[0])
        expect_outcome(self, where, args, result.exit_code, result.output)

    def python(self, where: str, code: str) -> None:
        """A `python -c` snippet, run from the copy's root as the page says to run it."""
        done = subprocess.run(
            [sys.executable, "-c", code],
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, f"{where}: python -c ... -> {done.returncode}\n{done.stderr}"
        self.last_output = done.stdout
        self.ran.append("python -c")


def run_block(session: Session, where: str, command: list[str]) -> None:
    program = command[0]
    if command[:2] == ["meetme", "twin"]:
        return  # as root with FRR only: tests/test_twin_integration.py runs these commands
    if program == "meetme":
        session.meetme(where, command[1:])
    elif program == "python" and command[1:2] == ["-c"] and len(command) == 3:
        session.python(where, command[2])
    elif program == "export":
        for assignment in command[1:]:
            session.export(assignment)
    else:
        assert program in NOT_RUN_HERE, f"{where}: `{shlex.join(command)}` is not known here"


def inventory_devices(root: Path) -> list[str]:
    return list(yaml.safe_load((root / "inventory.yaml").read_text())["devices"])


def needed_secrets(root: Path) -> set[str]:
    """The secrets a lab run needs, counted by hand: every placeholder in the rendered files of
    the inventory's devices, and the inventory's login."""
    inventory = yaml.safe_load((root / "inventory.yaml").read_text())
    names = {str(inventory["credentials"]["password"]).removeprefix("secret:")}
    for device in inventory["devices"]:
        (rendered,) = (root / "rendered").glob(f"*/{device}.*")
        names |= set(re.findall(r"<<secret:([^>]+)>>", rendered.read_text()))
    return names


def table_rows(output: str) -> dict[str, list[str]]:
    """The result table (one row per line when piped): device -> its cells."""
    rows = {}
    for line in output.splitlines():
        cells = [c.strip() for c in line.strip("│ ").split("│")]
        if len(cells) == 7 and cells[0].startswith(("aus1-", "mel1-")):
            rows[cells[0]] = cells
    return rows


def expect_outcome(session: Session, where: str, args: list[str], code: int, output: str) -> None:
    shown = f"{where}: meetme {shlex.join(args)} -> {code}\n{output[-3000:]}"
    if args[0] not in ("plan", "push"):
        assert code == 0, shown
        return
    devices = inventory_devices(session.root)
    if not session.secrets_set:
        assert code == 2, shown
        named = set(re.findall(r"secret '([^']+)' is not set", output))
        assert named == needed_secrets(session.root), shown
        assert len(named) == 19, shown  # the number README.md gives
        assert "no device was touched" in output, shown
        return
    assert code == 1, shown
    rows = table_rows(output)
    only = [args[i + 1] for i, a in enumerate(args) if a == "--device"]
    assert list(rows) == (only or devices), shown
    results = {device: (cells[4], cells[6]) for device, cells in rows.items()}
    if args[0] == "plan" or only:
        assert all(r == "failed" and d.startswith("connect: ") for r, d in results.values()), shown
        return
    first, *later = devices
    assert results[first][0] == "failed" and results[first][1].startswith("connect: "), shown
    assert {results[d][0] for d in later} == {"skipped"}, shown
    journal = sorted((session.root / "journal").glob("*-push-lab.jsonl"))[-1]
    steps = [json.loads(line) for line in journal.read_text().splitlines()]
    assert not any(s["step"] == "commit" for s in steps), "nothing may be committed"


@pytest.fixture
def repository_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The example as a team's clone: the shipped files, HEAD~1, and origin/main."""
    root = tmp_path / "network"
    root.mkdir()
    for name in ("intent", "rendered"):
        shutil.copytree(REPO / name, root / name)
    shutil.copy2(REPO / "inventory.yaml", root / "inventory.yaml")
    for args in (
        ("init", "-q"),
        ("add", "-A"),
        ("commit", "-qm", "example"),
        ("commit", "-q", "--allow-empty", "-m", "second"),
        ("update-ref", "refs/remotes/origin/main", "HEAD"),
    ):
        git(root, *args)
    monkeypatch.chdir(root)
    for variable in [v for v in __import__("os").environ if v.startswith("MEETME_SECRET_")]:
        monkeypatch.delenv(variable)
    refuse_lab_connections(monkeypatch, root)
    yield root


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def refuse_lab_connections(monkeypatch: pytest.MonkeyPatch, root: Path) -> None:
    """The lab devices are unreachable, as the docs assume in CI: every connection to one of the
    inventory's hosts is refused, whatever the network around this machine would do."""
    hosts = {
        ipaddress.ip_address(entry["host"])
        for entry in yaml.safe_load((root / "inventory.yaml").read_text())["devices"].values()
    }
    connect = socket.socket.connect

    def refusing(self: socket.socket, address: Any) -> None:
        if isinstance(address, tuple) and _address(address[0]) in hosts:
            raise ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")
        connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", refusing)


def _address(host: object) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(str(host))
    except ValueError:
        return None


def test_every_command_in_the_docs_runs_as_documented(
    repository_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = Session(repository_copy, monkeypatch)
    for doc in COMMAND_DOCS:
        for block in fenced_blocks(doc):
            if block.lang == "sh":
                for command in command_lines(block):
                    run_block(session, block.where, command)
                    if command[:2] == ["python", "-c"]:
                        assert session.last_output == SNIPPET_PRINTS[doc], block.where
        if doc == "README.md":
            for number, span in inline_commands(doc):
                run_block(session, f"{doc}:{number}", shlex.split(span))
    assert set(session.ran) >= {
        "render",
        "check",
        "lint",
        "rules",
        "explain",
        "schema",
        "diff",
        "plan",
        "push",
        "report",
        "python -c",
    }
    # the chart docs/dci.md's `report dci --chart dci.svg` draws
    assert (repository_copy / "dci.svg").read_text().lstrip().startswith("<")
    # the count the test holds the snippet to is the one docs/twin.md states
    assert "`46 routers in 80 namespaces`" in (REPO / "docs/twin.md").read_text()
    assert json.loads((repository_copy / ".meetme/intent.schema.json").read_text())["properties"]


# ---- YAML blocks -----------------------------------------------------------------------------


def yaml_blocks() -> list[Block]:
    return [b for doc in DOCS for b in fenced_blocks(doc) if b.lang == "yaml"]


def shipped_intent() -> dict[str, Any]:
    """The example's intent as the files say it, merged (as the loader merges mappings)."""
    merged: dict[str, Any] = {}
    for path in sorted((REPO / "intent").rglob("*.y*ml")):
        _merge(merged, read_yaml(path.read_text()) or {})
    return merged


def _merge(into: dict[str, Any], data: dict[str, Any]) -> None:
    for key, value in data.items():
        if isinstance(into.get(key), dict) and isinstance(value, dict):
            _merge(into[key], value)
        else:
            into[key] = value


def elided(value: Any) -> bool:
    return isinstance(value, str) and ELIDED in value


def has_elision(value: Any) -> bool:
    if isinstance(value, dict):
        return any(elided(k) or has_elision(v) for k, v in value.items())
    if isinstance(value, list):
        return any(has_elision(v) for v in value)
    return elided(value)


class SchemaWalk:
    """Where a key may stand, by the JSON Schema of the merged intent."""

    def __init__(self) -> None:
        self.schema = intent_schema(partial=False)

    def resolve(self, node: dict[str, Any]) -> list[dict[str, Any]]:
        """The object-or-array schemas a node can be: $ref followed, anyOf / oneOf flattened."""
        if "$ref" in node:
            return self.resolve(self.schema["$defs"][node["$ref"].rsplit("/", 1)[-1]])
        branches = node.get("anyOf", []) + node.get("oneOf", []) + node.get("allOf", [])
        if branches:
            return [found for branch in branches for found in self.resolve(branch)]
        return [node]

    @staticmethod
    def key_schema(node: dict[str, Any], key: str) -> dict[str, Any] | None:
        """The schema of `key` in an object schema: a property, or a name of a collection."""
        if key in node.get("properties", {}):
            return dict(node["properties"][key])
        for pattern, schema in node.get("patternProperties", {}).items():
            if re.search(pattern, key):
                return dict(schema)
        extra = node.get("additionalProperties")
        return dict(extra) if isinstance(extra, dict) else None

    def unknown_keys(self, value: Any, node: dict[str, Any], path: str) -> list[str]:
        if isinstance(value, dict):
            problems = []
            for key, item in value.items():
                if elided(key):
                    continue
                inner = [s for s in self.resolve(node) if s.get("type") == "object"]
                fits = [fit for s in inner if (fit := self.key_schema(s, str(key))) is not None]
                if not fits:
                    problems.append(f"{path}.{key}")
                    continue
                deeper = [self.unknown_keys(item, fit, f"{path}.{key}") for fit in fits]
                problems += min(deeper, key=len)
            return problems
        if isinstance(value, list):
            arrays = [s["items"] for s in self.resolve(node) if s.get("type") == "array"]
            problems = []
            for index, item in enumerate(value):
                deeper = [self.unknown_keys(item, a, f"{path}[{index}]") for a in arrays]
                problems += min(deeper, key=len) if deeper else [f"{path}[{index}]"]
            return problems
        return []


def disagreements(shown: Any, shipped: Any, path: str) -> list[str]:
    """Where a snippet shows a value for something the example has, and the example differs."""
    if elided(shown):
        return []
    if isinstance(shown, dict) and isinstance(shipped, dict):
        return [
            problem
            for key, value in shown.items()
            if not elided(key) and key in shipped
            for problem in disagreements(value, shipped[key], f"{path}.{key}")
        ]
    if isinstance(shown, list) and isinstance(shipped, list):
        if all(isinstance(item, dict) for item in shown):
            return [
                f"{path}[{i}]: no such item in the example: {item}"
                for i, item in enumerate(shown)
                if all(disagreements(item, candidate, path) for candidate in shipped)
            ]
        if shown == [ELIDED]:
            return []
    return [] if shown == shipped else [f"{path}: shows {shown!r}, the example has {shipped!r}"]


def additions(shown: Any, shipped: Any) -> Any:
    """What a snippet shows that the example lacks, as an intent fragment (or None)."""
    if not (isinstance(shown, dict) and isinstance(shipped, dict)):
        return None
    extra = {}
    for key, value in shown.items():
        if elided(key):
            continue
        if key not in shipped:
            extra[key] = value
        elif (inner := additions(value, shipped[key])) is not None:
            extra[key] = inner
    return extra or None


@pytest.mark.parametrize("block", yaml_blocks(), ids=lambda b: b.where)
def test_yaml_example_is_true_of_the_repository(block: Block, tmp_path: Path) -> None:
    data = read_yaml(block.text)
    assert isinstance(data, dict), f"{block.where}: not a mapping"
    if set(data) <= INTENT_KEYS:
        check_intent_snippet(block, data, tmp_path)
    elif set(data) <= INVENTORY_KEYS:
        check_inventory_snippet(block, tmp_path)
    elif set(data) == {"repos"}:
        check_pre_commit_config(block, data)
    elif all(isinstance(job, dict) and "script" in job for job in data.values()):
        check_gitlab_job(block, data)
    else:
        pytest.fail(f"{block.where}: a YAML block of no known kind: {sorted(data)}")


def check_intent_snippet(block: Block, data: dict[str, Any], tmp_path: Path) -> None:
    walk = SchemaWalk()
    assert walk.unknown_keys(data, walk.schema, "") == [], f"{block.where}: keys not in the schema"
    shipped = shipped_intent()
    assert disagreements(data, shipped, "") == [], f"{block.where}: differs from the example"
    if not has_elision(data):
        jsonschema.validate(data, intent_schema(partial=True))
    extra = additions(data, shipped)
    if block.doc == "README.md" and extra is not None:
        assert not has_elision(extra), (
            f"{block.where}: shows, in part (…), something the example does not have: {extra}; "
            "show one of the example's objects, or a new one whole"
        )
        copy = tmp_path / "intent"
        shutil.copytree(REPO / "intent", copy)
        (copy / "aus1/readme-example.yaml").write_text(yaml.safe_dump(extra))
        result = lint(copy)
        assert result.errors == [], f"{block.where}: adding {extra} gives {result.errors}"


def test_the_srv6_page_example_is_the_shipped_domain(tmp_path: Path) -> None:
    """docs/srv6.md: its `srv6:` block, written as intent/srv6.yaml, lints with no error and the
    example's warnings (two DCI-009, mel1's HANDOFF-013); its `vrfs:` uncommented as it stands
    fails with SRV6-004; with mel1's borders in the domain too (`mel1: {id: 2}`), with PLAT-018
    and PLAT-019."""
    (block,) = [
        b
        for b in fenced_blocks("docs/srv6.md")
        if b.lang == "yaml" and set(read_yaml(b.text)) == {"srv6"}
    ]
    copy = tmp_path / "intent"
    shutil.copytree(REPO / "intent", copy)

    def lint_as(text: str) -> tuple[list[str], list[str]]:
        (copy / "srv6.yaml").write_text(text)
        found = lint(copy).findings
        return (
            sorted({f.rule for f in found if f.severity == "error"}),
            [f.rule for f in found if f.severity == "warning"],
        )

    assert lint_as(block.text) == ([], ["DCI-009", "DCI-009", "HANDOFF-013"]), block.where
    uncommented = block.text.replace("  # vrfs:", "  vrfs:", 1).replace(
        "  #   storage:", "    storage:", 1
    )
    assert uncommented.count("storage: {id: 10") == 1 and "\n    storage:" in uncommented
    errors, _ = lint_as(uncommented)
    assert errors == ["SRV6-004"], block.where
    whole = uncommented.replace("mel1: {id: 2, devices: []}", "mel1: {id: 2}", 1)
    assert whole != uncommented
    errors, _ = lint_as(whole)
    assert errors == ["PLAT-018", "PLAT-019"], block.where


def check_inventory_snippet(block: Block, tmp_path: Path) -> None:
    path = tmp_path / "inventory.yaml"
    path.write_text(block.text)
    loaded = load_inventory(path).inventory  # raises IntentError, with each problem, if not
    data = yaml.safe_load(block.text)
    if "defaults shown" in block.text:  # the block says its settings are the defaults
        assert data["settings"] == Settings().model_dump(), block.where
    shipped = yaml.safe_load((REPO / "inventory.yaml").read_text())["devices"]
    for name, entry in data["devices"].items():
        assert name in shipped, f"{block.where}: {name} is not in the shipped inventory"
        same = {k: v for k, v in entry.items() if k in shipped[name]}
        assert same == {k: shipped[name][k] for k in same}, f"{block.where}: {name}"
    assert loaded.devices


def check_pre_commit_config(block: Block, data: dict[str, Any]) -> None:
    hooks = {h["id"] for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    for repo in data["repos"]:
        assert_installable_ref(str(repo["rev"]), block.where)
        assert {h["id"] for h in repo["hooks"]} <= hooks, block.where


def check_gitlab_job(block: Block, data: dict[str, Any]) -> None:
    subcommands = getattr(typer.main.get_command(app), "commands", {})
    for job in data.values():
        for line in job["script"]:
            words = shlex.split(line)
            if words[:2] == ["pip", "install"]:
                assert_installable_ref(words[-1].rsplit("@", 1)[-1], block.where)
            if words[:1] == ["meetme"]:
                end = next((i for i, w in enumerate(words) if w in ("||", ">", "|")), None)
                name, *args = words[1:end]
                subcommands[name].make_context(name, args)  # raises on a bad option or value


def assert_installable_ref(ref: str, where: str) -> None:
    """A version the docs tell a team to install must exist: `main`, or a tag we have."""
    if ref == "main":
        return
    tags = git(REPO, "tag", "--list") if (REPO / ".git").exists() else ""
    assert ref in tags.split(), f"{where}: {ref} is neither main nor a tag of this repository"


def test_every_installable_ref_in_the_docs_is_main_or_a_tag() -> None:
    """The pre-commit `rev:` and pip `@ref` forms in the docs and the CI example."""
    texts = {doc: (REPO / doc).read_text() for doc in (*DOCS, "docs/ci-example.yml")}
    refs = [
        (doc, ref)
        for doc, text in texts.items()
        for ref in re.findall(r"^\s*rev:\s*(\S+)|meetme(?:\.git)?@([^\s\"]+)", text, re.M)
    ]
    found = [(doc, a or b) for doc, (a, b) in refs]
    assert {doc for doc, _ in found} == {"README.md", "docs/adoption.md", "docs/ci-example.yml"}
    for doc, ref in found:
        assert_installable_ref(ref, doc)
