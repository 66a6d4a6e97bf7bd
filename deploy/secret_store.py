"""Resolve `secret:NAME` references and `<<secret:NAME>>` placeholders, in memory only.

Values come from the environment (MEETME_SECRET_<NAME>, upper case, '-' and '.' as '_') or
from a YAML secrets file given with --secrets; the environment wins. A secrets file inside a
git work tree is refused unless git ignores it, so a value can never be committed by accident.
Everything meetme prints or journals goes through `SecretStore.mask`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from meetme.validators.yaml_source import read_file

from meetme.problems import IntentError, Location, Problem
from meetme.secret_refs import NAME_PATTERN, PLACEHOLDER_RE, placeholder

ENV_PREFIX = "MEETME_SECRET_"
_NAME_RE = re.compile(rf"^{NAME_PATTERN}$")


def env_name(name: str) -> str:
    """'bgp-aus1.br1' -> 'MEETME_SECRET_BGP_AUS1_BR1'."""
    return ENV_PREFIX + re.sub(r"[-.]", "_", name.upper())


def placeholders_in(text: str) -> set[str]:
    return set(PLACEHOLDER_RE.findall(text))


@dataclass
class SecretStore:
    """Resolved values by name; never printed, never written."""

    values: dict[str, str] = field(default_factory=dict)
    _masks: list[tuple[str, str]] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        masks: dict[str, str] = {}
        for name, value in self.values.items():
            # the raw value and the escaped forms a JSON body or a Python repr would carry
            for variant in (value, json.dumps(value)[1:-1], repr(value)[1:-1]):
                if variant:
                    masks.setdefault(variant, placeholder(name))
        self._masks = sorted(masks.items(), key=lambda item: -len(item[0]))

    def __repr__(self) -> str:  # a stray print or traceback must not show a value
        return f"SecretStore(names={sorted(self.values)})"

    def get(self, reference_or_name: str) -> str:
        name = reference_or_name.removeprefix("secret:")
        return self.values[name]

    def substitute(self, text: str) -> str:
        """The text with every <<secret:NAME>> placeholder replaced by its value."""
        return PLACEHOLDER_RE.sub(lambda m: self.values[m.group(1)], text)

    def mask(self, text: str) -> str:
        """The text with every secret value shown as its placeholder again."""
        for value, shown in self._masks:
            text = text.replace(value, shown)
        return text


def read_secrets_file(path: Path) -> dict[str, str]:
    """A YAML mapping NAME: value, refused when git could commit it."""
    name = str(path)
    if not path.is_file():
        raise IntentError([Problem(Location(name, 1, 1), "secrets file not found", "missing")])
    refusal = _git_refusal(path)
    if refusal:
        raise IntentError([Problem(Location(name, 1, 1), refusal, "secrets-in-git")])
    source, problems = read_file(path, name)
    if source is None or problems:
        raise IntentError(problems)
    data = source.data or {}
    if not isinstance(data, dict):
        raise IntentError(
            [Problem(Location(name, 1, 1), "a secrets file is a mapping NAME: value", "wrong-type")]
        )
    bad: list[Problem] = []
    values: dict[str, str] = {}
    for key, value in data.items():
        where = source.positions.get((key,), Location(name, 1, 1))
        if not _NAME_RE.match(str(key)):
            bad.append(Problem(where, f"'{key}' is not a secret name", "bad-value"))
        elif not isinstance(value, str):
            bad.append(
                Problem(where, f"the value of {key} must be a string; quote it", "bad-value")
            )
        else:
            values[str(key)] = value
    if bad:
        raise IntentError(bad)
    return values


def loose_permissions(path: Path) -> bool:
    """True when group or others may read the file (ssh refuses such keys; we warn)."""
    return bool(path.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO))


def resolve(
    names: Iterable[str],
    where_needed: Mapping[str, Location],
    file_values: Mapping[str, str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> SecretStore:
    """Every named secret, or IntentError naming each missing one and where it is needed."""
    environ = os.environ if environ is None else environ
    file_values = file_values or {}
    values: dict[str, str] = {}
    problems: list[Problem] = []
    for name in sorted(set(names)):
        value = environ.get(env_name(name))
        if value is None:
            value = file_values.get(name)
        needed_by = where_needed.get(name, Location("secrets", 1, 1))
        if value is None:
            problems.append(
                Problem(
                    needed_by,
                    f"secret '{name}' is not set: export {env_name(name)} or add "
                    f"'{name}: ...' to the file given with --secrets",
                    "missing-secret",
                )
            )
        elif not value or "\n" in value or "\r" in value:
            problems.append(
                Problem(
                    needed_by,
                    f"secret '{name}' is empty or holds a line break, which would change "
                    "the configuration around it",
                    "bad-secret",
                )
            )
        else:
            values[name] = value
    if problems:
        raise IntentError(problems)
    return SecretStore(values)


def _git_refusal(path: Path) -> str | None:
    """Why a secrets file at `path` must not be used, or None when git cannot commit it."""
    folder = path.resolve().parent
    in_tree = any((parent / ".git").exists() for parent in (folder, *folder.parents))
    if not in_tree:
        return None
    git = shutil.which("git")
    if git is None:
        return (
            "this secrets file is inside a git work tree and git is not installed to tell "
            "whether it is ignored; move it outside the repository"
        )
    try:
        ignored = subprocess.run(
            [git, "-C", str(folder), "check-ignore", "-q", str(path.resolve())],
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return "could not ask git whether this secrets file is ignored; move it outside git"
    if ignored.returncode == 0:
        return None
    return (
        "this secrets file is inside a git work tree and not ignored by git, so it could be "
        "committed; move it outside the repository or add it to .gitignore"
    )
