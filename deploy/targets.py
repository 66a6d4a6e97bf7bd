"""Pre-flight: which devices a run touches, with their config and secrets, or why none is.

Everything here happens before the first connection: a device of another stage, a driver that
does not fit the platform, a missing rendered file, a secret placeholder where no secret belongs
or a missing secret stops the whole run with file:line:column problems (exit 2), so no device
is ever left half-way because of them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from meetme.deploy.checks import expected_remote_vteps
from meetme.deploy.inventory import (
    DRIVER_PLATFORMS,
    IMPLEMENTED_DRIVERS,
    Credentials,
    DeviceEntry,
    LoadedInventory,
)
from meetme.deploy.secret_positions import (
    describe_positions,
    misplaced_placeholders,
    value_forms,
)
from meetme.deploy.secret_store import (
    SecretStore,
    env_name,
    origin,
    placeholders_in,
    resolve_partly,
)
from meetme.generators.model import DeviceModel
from meetme.generators.sources import output_name

from meetme.core.problems import IntentError, Location, Problem
from meetme.core.secret_refs import REFERENCE_RE
from meetme.intent.loader import display_path

# The stanza without which a replace would switch off the API meetme talks through: the push
# could never be confirmed (EOS reverts after its timer; NX-OS would be cut off for good).
MANAGEMENT_API = {
    "eos": "management api http-commands",
    "nxos": "feature nxapi",
    "iosxr_netconf": "netconf-yang agent",
    # the XML agent is never rendered: a replace through the `iosxr` driver would remove the
    # very agent it talks to, so that driver is refused
    "iosxr": "xml agent tty",
}


def lockout_risk(target: Target) -> str | None:
    """Why replacing the running config with this file would cut meetme off, or None."""
    username = target.credentials.username
    users = {user.name for user in target.model.management.users}
    if username not in users:
        return (
            f"{target.name}: the login {username!r} is not a local user of the rendered config "
            f"({', '.join(sorted(users)) or 'none'}), so a replace would delete it; add it to "
            "the site's management users or log in as one of them"
        )
    stanza = MANAGEMENT_API.get(target.entry.driver)
    if stanza is None or any(line.strip() == stanza for line in target.text.splitlines()):
        return None
    return (
        f"{target.name}: the rendered config has no '{stanza}', so a replace would switch off "
        f"the API the {target.entry.driver} driver uses; the templates must render it"
    )


@dataclass(frozen=True)
class Target:
    name: str
    entry: DeviceEntry
    model: DeviceModel
    rendered: Path
    text: str  # the rendered file as written: placeholders, never values
    credentials: Credentials
    # the remote VTEPs the device must see once pushed (checks.expected_remote_vteps)
    remote_vteps: tuple[str, ...] = ()

    @property
    def supported(self) -> bool:
        return self.entry.driver in IMPLEMENTED_DRIVERS


def select_targets(
    loaded: LoadedInventory,
    models: dict[str, DeviceModel],
    rendered_dir: Path,
    stage: str,
    only: list[str] | None = None,
    refuse_unsupported: bool = True,
) -> list[Target]:
    """The devices a run works on. `plan` keeps devices whose driver has no adapter yet (it
    reports them as not supported); `push` refuses the whole run instead, so a push never
    silently leaves a device of the stage out."""
    inventory = loaded.inventory
    problems: list[Problem] = []
    if only:
        for name in only:
            entry = inventory.devices.get(name)
            if entry is None:
                problems.append(
                    Problem(
                        loaded.where("devices"),
                        f"--device {name}: not in the inventory; known: "
                        f"{', '.join(sorted(inventory.devices))}",
                        "unknown-device",
                    )
                )
            elif entry.stage != stage:
                problems.append(
                    Problem(
                        loaded.value_at("devices", name, "stage"),
                        f"{name} is a {entry.stage} device; refused for --stage {stage}",
                        "wrong-stage",
                    )
                )
        names = list(dict.fromkeys(only))
    else:
        names = [n for n, e in inventory.devices.items() if e.stage == stage]
        if not names:
            problems.append(
                Problem(loaded.where(), f"no device of stage {stage} in the inventory", "empty")
            )
    if problems:
        raise IntentError(problems)

    logins = _login_secrets(loaded)
    targets: list[Target] = []
    for name in names:
        entry = inventory.devices[name]
        model = models.get(name)
        if model is None:
            problems.append(
                Problem(
                    loaded.where("devices", name),
                    f"{name} is not a device of the intent",
                    "unknown-device",
                )
            )
            continue
        wanted = DRIVER_PLATFORMS[entry.driver]
        if wanted != model.platform:
            problems.append(
                Problem(
                    loaded.value_at("devices", name, "driver"),
                    f"driver {entry.driver} pushes {wanted} configs, but {name} is "
                    f"{model.platform}",
                    "bad-value",
                )
            )
            continue
        if entry.driver not in IMPLEMENTED_DRIVERS and refuse_unsupported:
            problems.append(
                Problem(
                    loaded.value_at("devices", name, "driver"),
                    f"{name}: the {entry.driver} path has no push adapter yet (docs/push.md); "
                    "push the other devices with --device",
                    "unsupported-driver",
                )
            )
            continue
        rendered = rendered_dir / output_name(model)
        if not rendered.is_file():
            problems.append(
                Problem(
                    Location(display_path(rendered), 1, 1),
                    f"rendered config of {name} not found; run `meetme render`",
                    "missing",
                )
            )
            continue
        credentials = inventory.credentials_of(name)
        assert credentials is not None  # load_inventory guarantees it
        text = rendered.read_text(encoding="utf-8")
        vteps = expected_remote_vteps(model, models.values())
        target = Target(name, entry, model, rendered, text, credentials, vteps)
        fenced = misplaced_secret_problems(target) + login_secret_problems(target, logins)
        if fenced:
            problems += fenced
            continue
        risk = lockout_risk(target)
        if risk and refuse_unsupported:
            problems.append(Problem(Location(display_path(rendered), 1, 1), risk, "lockout"))
            continue
        targets.append(target)
    if problems:
        raise IntentError(problems)
    return targets


def misplaced_secret_problems(target: Target) -> list[Problem]:
    """A placeholder the push would resolve where no secret belongs (free text of the intent, an
    interface name, ...): the device would get the secret's value in clear there."""
    where = display_path(target.rendered)
    platform = target.model.platform
    return [
        Problem(
            Location(where, spot.line, spot.column),
            f"{target.name}: the placeholder of secret '{spot.name}' stands where no secret "
            f"belongs; {platform} takes one only as {describe_positions(platform)}, so a push "
            "would send its value in clear; remove it from the intent's text and render again",
            "misplaced-secret",
        )
        for spot in misplaced_placeholders(target.text, platform)
    ]


def login_secret_problems(target: Target, logins: set[str]) -> list[Problem]:
    """A placeholder naming a secret the inventory logs in with: even at a key's position, the
    device would keep the login in its configuration, for every reader of it."""
    return [
        Problem(
            _line_of(target.rendered, name),
            f"{target.name}: secret '{name}' is a login credential of the inventory; a rendered "
            "config must never carry it, or the device would store the login in its "
            "configuration; give this key a secret of its own",
            "login-secret-in-config",
        )
        for name in sorted(placeholders_in(target.text) & logins)
    ]


def _login_secrets(loaded: LoadedInventory) -> set[str]:
    """Every secret the inventory logs in with, on any device."""
    inventory = loaded.inventory
    found = set(inventory.credentials.references()) if inventory.credentials else set()
    for entry in inventory.devices.values():
        if entry.credentials is not None:
            found |= entry.credentials.references()
    return found


def resolve_secrets(
    targets: list[Target],
    loaded: LoadedInventory,
    file_values: dict[str, str] | None = None,
    environ: dict[str, str] | None = None,
    refused: Collection[str] = (),
) -> SecretStore:
    """Every secret the run needs, from the environment or the secrets file; refused when a
    value also stands as ordinary text of the run, or a login the driver cannot send. Every
    problem is named at once. `refused`: names whose secrets-file entry was refused (and
    named there): not reported missing again unless the environment has them."""
    where: dict[str, Location] = {}
    logins: dict[str, set[str]] = {}  # secret name -> the drivers that send it as a login
    for target in targets:
        if not target.supported:
            continue  # never connected to: its secrets are not needed
        for name in sorted(placeholders_in(target.text)):
            where.setdefault(name, _line_of(target.rendered, name))
        credentials_path = (
            ("devices", target.name, "credentials")
            if target.entry.credentials is not None
            else ("credentials",)
        )
        for field in ("username", "password"):
            match = REFERENCE_RE.match(getattr(target.credentials, field))
            if match:
                where.setdefault(match.group(1), loaded.value_at(*credentials_path, field))
                logins.setdefault(match.group(1), set()).add(target.entry.driver)
    present = os.environ if environ is None else environ
    names = [n for n in where if n not in refused or env_name(n) in present]
    store, problems = resolve_partly(names, where, file_values, environ)
    problems += _ordinary_text(store, targets, loaded, where, environ)
    problems += _unsendable_logins(store, logins, where, environ)
    problems += _misformed_hashes(store, targets, where, environ)
    if problems:
        raise IntentError(problems)
    return store


def _ordinary_text(
    store: SecretStore,
    targets: list[Target],
    loaded: LoadedInventory,
    where: dict[str, Location],
    environ: dict[str, str] | None,
) -> list[Problem]:
    """A secret whose value is also a word of a rendered config or a device name: masking
    it in the output and the journal would hide that text and show, by where the
    placeholder stands, what the value is. The message never says which word it is."""
    texts = [target.text for target in targets]
    texts.append("\n".join(sorted(loaded.inventory.devices)))
    found = set().union(*(store.standing_in(text) for text in texts))
    return [
        Problem(
            where[name],
            f"secret '{name}' ({origin(name, environ)}) is also a word of a rendered config or "
            "a device name of this run: "
            "masking it would hide that word and so show the value; set one that is not",
            "bad-secret",
        )
        for name in sorted(found)
    ]


def _misformed_hashes(
    store: SecretStore,
    targets: list[Target],
    where: dict[str, Location],
    environ: dict[str, str] | None,
) -> list[Problem]:
    """A secret standing where a device takes a crypt hash as it is, whose value is not one
    of that algorithm: the account would exist with a hash no password matches (and a
    password exported there would sit on the device as its 'hash'). Never the value."""
    forms: dict[str, tuple[str, re.Pattern[str]]] = {}
    for target in targets:
        if target.supported:
            for name, form in value_forms(target.text, target.model.platform).items():
                forms.setdefault(name, form)
    return [
        Problem(
            where[name],
            f"secret '{name}' ({origin(name, environ)}) stands where the device takes "
            f"{label} as it is, and its value is not one: the account could not log in "
            "after the push; export the hash, not the password",
            "bad-secret",
        )
        for name, (label, pattern) in sorted(forms.items())
        if name in store.values and pattern.fullmatch(store.get(name)) is None
    ]


# NX-API takes HTTP basic authentication, whose header meetme's NX-OS adapter writes in
# Latin-1 (deploy/nxos_checkpoint.py); another character fails there, in a message that names it.
_LOGIN_CHARSETS = {"nxos": "latin-1"}


def _unsendable_logins(
    store: SecretStore,
    logins: dict[str, set[str]],
    where: dict[str, Location],
    environ: dict[str, str] | None,
) -> list[Problem]:
    problems: list[Problem] = []
    for name, drivers in sorted(logins.items()):
        limited = sorted(d for d in drivers if d in _LOGIN_CHARSETS)
        if not limited or name not in store.values:  # unresolved: named as such already
            continue
        driver = limited[0]
        charset = _LOGIN_CHARSETS[driver]
        try:
            store.get(name).encode(charset)
        except UnicodeEncodeError:
            problems.append(
                Problem(
                    where[name],
                    f"secret '{name}' ({origin(name, environ)}) is the login of a {driver} "
                    "device, whose API takes "
                    f"{charset} characters only, and this value has others; set one without",
                    "bad-secret",
                )
            )
    return problems


def _line_of(path: Path, name: str) -> Location:
    needle = f"<<secret:{name}>>"
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        column = line.find(needle)
        if column >= 0:
            return Location(display_path(path), number, column + 1)
    return Location(display_path(path), 1, 1)


def drift_problems(targets: list[Target], expected: dict[str, str]) -> list[Problem]:
    """rendered-drift: a target's file is not what `meetme render` writes from the intent
    (`expected`: relative output path -> text, as `meetme check` compares). A hand edit of
    rendered/ (a backdoor user, a stale file) would otherwise reach the device unreviewed."""
    problems: list[Problem] = []
    for target in targets:
        relative = output_name(target.model)
        want = expected.get(relative)
        if want is None or target.text == want:
            continue
        have_lines, want_lines = target.text.splitlines(), want.splitlines()
        line = next(
            (i + 1 for i, (a, b) in enumerate(zip(have_lines, want_lines, strict=False)) if a != b),
            min(len(have_lines), len(want_lines)) + 1,
        )
        problems.append(
            Problem(
                Location(display_path(target.rendered), line, 1),
                f"{target.name}: the rendered file differs from what the intent renders "
                "(`meetme check` flags it); run `meetme render`, or push it anyway with "
                "--allow-drift (recorded in the journal)",
                "rendered-drift",
            )
        )
    return problems
