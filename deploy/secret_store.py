"""Resolve `secret:NAME` references and `<<secret:NAME>>` placeholders, in memory only.

Values come from the environment (MEETME_SECRET_<NAME>, upper case, '-' and '.' as '_') or
from a YAML secrets file given with --secrets; the environment wins. A secrets file inside a
git work tree is refused unless git ignores it, so a value can never be committed by accident.
Everything meetme prints or journals goes through `SecretStore.mask`. A value shorter than
MIN_LENGTH is refused: it could be guessed, and masking it would mark every place the same
letters stand as a word of their own, which reveals it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from meetme.core.problems import IntentError, Location, Problem
from meetme.core.secret_refs import NAME_PATTERN, PLACEHOLDER_RE, placeholder
from meetme.intent.yaml_source import read_file

ENV_PREFIX = "MEETME_SECRET_"
MIN_LENGTH = 8
_NAME_RE = re.compile(rf"^{NAME_PATTERN}$")
# The masking boundary (see SecretStore.mask): before a value, a character that is not a
# letter, digit or underscore, or the end of a backslash escape of a JSON body or a Python repr
# (`\n`, `\x1b`, `\u00e9`, ...), whose last character is a letter or digit but not part of the
# value; after a value, anything but a letter, digit or underscore.
_BEFORE = (
    r"(?:(?<!\w)|(?<=\\[abfnrtv])|(?<=\\x[0-9A-Fa-f]{2})"
    r"|(?<=\\u[0-9A-Fa-f]{4})|(?<=\\U[0-9A-Fa-f]{8}))"
)
_AFTER = r"(?!\w)"
_WORD_CHAR = re.compile(r"\w")


def env_name(name: str) -> str:
    """'bgp-aus1.br1' -> 'MEETME_SECRET_BGP_AUS1_BR1'."""
    return ENV_PREFIX + re.sub(r"[-.]", "_", name.upper())


def placeholders_in(text: str) -> set[str]:
    return set(PLACEHOLDER_RE.findall(text))


def _whole_token(variant: str) -> re.Pattern[str]:
    """`variant` where it stands as a whole token. A side of the value that is itself
    punctuation or space is a boundary already, so only a letter, digit or underscore at an
    edge of the value asks for a boundary beside it."""
    before = _BEFORE if _WORD_CHAR.match(variant[0]) else ""
    after = _AFTER if _WORD_CHAR.match(variant[-1]) else ""
    return re.compile(before + re.escape(variant) + after)


@dataclass
class SecretStore:
    """Resolved values by name; never printed, never written."""

    values: dict[str, str] = field(default_factory=dict)
    _masks: list[tuple[str, str, re.Pattern[str]]] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        masks: dict[str, str] = {}
        for name, value in self.values.items():
            # the raw value and the escaped forms a JSON body, a Python repr or a YAML
            # single-quoted scalar (NVUE's config: its only escape is a doubled ') carry
            yaml_quoted = value.replace("'", "''")
            for variant in (value, json.dumps(value)[1:-1], repr(value)[1:-1], yaml_quoted):
                if variant:
                    masks.setdefault(variant, placeholder(name))
        self._masks = [
            (variant, shown, _whole_token(variant))
            for variant, shown in sorted(masks.items(), key=lambda item: -len(item[0]))
        ]

    def __repr__(self) -> str:  # a stray print or traceback must not show a value
        return f"SecretStore(names={sorted(self.values)})"

    def get(self, reference_or_name: str) -> str:
        name = reference_or_name.removeprefix("secret:")
        return self.values[name]

    def standing_in(self, text: str) -> set[str]:
        """The names of the secrets whose value stands in `text` as a whole token, as `mask`
        would find it."""
        return {
            shown[len("<<secret:") : -2]
            for variant, shown, pattern in self._masks
            if variant in text and pattern.search(text)
        }

    def substitute(self, text: str, escape: Callable[[str], str] | None = None) -> str:
        """The text with every <<secret:NAME>> placeholder replaced by its value, written as
        the place it stands needs (`escape`: a YAML single-quoted scalar doubles a `'`)."""
        spell = escape or (lambda value: value)
        return PLACEHOLDER_RE.sub(lambda m: spell(self.values[m.group(1)]), text)

    def mask(self, text: str) -> str:
        r"""The text with every secret value shown as its placeholder again, where the value
        stands as a whole token, never inside an ordinary word: the secret `router12` is masked
        in `password 0 router12`, `key router12.`, `password: 'router12'`, `"router12"` and
        `"\nrouter12"`, but `router123`, `xrouter12` and `router12_b` stay as they are. A token
        is a run of letters, digits and underscores (Unicode `\w`); any other character (space,
        quote, `-`, `.`, `:`, `<`, a backslash), the start and the end of the text bound one,
        and so does a backslash escape (`\n`, `\t`, `\u00e9`) before the value, since a
        JSON body or a repr writes a line break that way. Masking a value inside a longer word
        would mark where its letters occur, the very thing it must hide (issue #9).

        The text is scanned once: a placeholder written here is never masked again, and where
        two values overlap, the earlier, then the longer one wins."""
        spans: list[tuple[int, int, str]] = []
        for variant, shown, pattern in self._masks:
            if variant in text:  # a plain search first: most texts hold no value at all
                spans.extend((m.start(), m.end(), shown) for m in pattern.finditer(text))
        if not spans:
            return text
        spans.sort(key=lambda span: (span[0], span[0] - span[1]))
        parts: list[str] = []
        at = 0
        for start, end, shown in spans:
            if start >= at:
                parts += [text[at:start], shown]
                at = end
        parts.append(text[at:])
        return "".join(parts)


class SecretsEntryError(IntentError):
    """Some entries of a secrets file are refused: the others are still usable, so that the
    run can name every secret missing besides (`refused`: the secret names of the entries
    refused, already named at their line, not to be reported missing again)."""

    def __init__(self, problems: list[Problem], values: dict[str, str], refused: set[str]) -> None:
        super().__init__(problems)
        self.values = values
        self.refused = refused


def read_secrets_file(path: Path) -> dict[str, str]:
    """A YAML mapping NAME: value, refused when git could commit it. A file refused as a whole
    raises IntentError; one with only some entries refused, SecretsEntryError."""
    name = str(path)
    if not path.is_file() and not path.is_fifo():  # a pipe: `--secrets <(pass show lab)`
        what = "is a folder, not a file" if path.is_dir() else "file not found"
        raise IntentError([Problem(Location(name, 1, 1), f"secrets {what}", "missing")])
    refusal = _git_refusal(path)
    if refusal:
        raise IntentError([Problem(Location(name, 1, 1), refusal, "secrets-in-git")])
    source, problems = read_file(path, name, hide_values=True, single=True)
    if source is None or problems:
        raise IntentError(problems)
    data = source.data or {}
    if not isinstance(data, dict):
        raise IntentError(
            [Problem(Location(name, 1, 1), "a secrets file is a mapping NAME: value", "wrong-type")]
        )
    bad: list[Problem] = []
    refused: set[str] = set()
    values: dict[str, str] = {}
    for key, value in data.items():
        where = source.positions.get((key,), Location(name, 1, 1))
        if not _NAME_RE.match(str(key)):
            # not quoted: a malformed key may be a value pasted in the wrong place
            bad.append(
                Problem(
                    where,
                    "this key is not a secret name (letters, digits, '.', '_' and '-', up to "
                    "63, starting with a letter or digit)",
                    "bad-value",
                )
            )
        elif not isinstance(value, str):
            bad.append(
                Problem(where, f"the value of {key} must be a string; quote it", "bad-value")
            )
            refused.add(str(key))
        else:
            values[str(key)] = value
    if bad:
        raise SecretsEntryError(bad, values, refused)
    return values


def origin(name: str, environ: Mapping[str, str] | None = None) -> str:
    """Where a secret's value was taken from, for messages: a stale exported variable wins
    over the file being fixed."""
    environ = os.environ if environ is None else environ
    variable = env_name(name)
    return f"from {variable}" if variable in environ else "from the --secrets file"


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
    store, problems = resolve_partly(names, where_needed, file_values, environ)
    if problems:
        raise IntentError(problems)
    return store


def resolve_partly(
    names: Iterable[str],
    where_needed: Mapping[str, Location],
    file_values: Mapping[str, str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> tuple[SecretStore, list[Problem]]:
    """The secrets that resolve, and a problem for each that does not: the run checks the
    values it has further and names every problem at once."""
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
        elif not value.strip() or not value.isprintable():
            # every line break (\n, \r, U+0085, U+2028, U+2029, what YAML and the CLIs cut at)
            # and every other control character fails isprintable()
            problems.append(
                Problem(
                    needed_by,
                    f"secret '{name}' ({origin(name, environ)}) is empty or blank, or holds a "
                    "line break or another control character, which would change the "
                    "configuration around it",
                    "bad-secret",
                )
            )
        elif value != value.strip():
            # a device drops it, so the key it keeps is not the one set, and the masks,
            # which look for the value with its spaces, would let the kept one through
            problems.append(
                Problem(
                    needed_by,
                    f"secret '{name}' ({origin(name, environ)}) starts or ends with white "
                    "space, which a device drops from the key it keeps; remove it",
                    "bad-secret",
                )
            )
        elif len(value) < MIN_LENGTH:
            # never the value nor its length: either would help a guess
            problems.append(
                Problem(
                    needed_by,
                    f"secret '{name}' ({origin(name, environ)}) is shorter than {MIN_LENGTH} "
                    "characters, the minimum: "
                    "a value that short can be guessed, and masking it in the journal would "
                    "reveal it; set a longer one",
                    "short-secret",
                )
            )
        else:
            values[name] = value
    return SecretStore(values), problems


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
