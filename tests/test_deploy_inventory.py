"""The lab inventory and the secrets: every problem is caught before a device is touched."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest
from emulator.lab import REPO, SECRET_ENV, SPINES, Lab, example_models
from meetme.deploy.inventory import DRIVER_PLATFORMS, load_inventory
from meetme.deploy.journal import Journal
from meetme.deploy.secret_store import SecretStore, env_name
from typer.testing import CliRunner

from meetme.cli import app
from meetme.core.problems import IntentError, Problem

runner = CliRunner()


def plan(*extra: str) -> tuple[int, str]:
    result = runner.invoke(app, ["plan", "--stage", "lab", *extra])
    return result.exit_code, result.output


def test_the_shipped_inventory_fits_the_example_intent() -> None:
    loaded = load_inventory(REPO / "inventory.yaml")
    models = example_models()
    for name, entry in loaded.inventory.devices.items():
        assert name in models, name
        assert DRIVER_PLATFORMS[entry.driver] == models[name].platform, name
        assert entry.stage == "lab"
    assert loaded.inventory.credentials is not None
    assert loaded.inventory.credentials.password == "secret:lab-admin"


def test_inventory_mistakes_are_reported_at_their_line(lab: Lab) -> None:
    path = lab.repo / "inventory.yaml"
    text = path.read_text()
    path.write_text(
        text.replace("wave: 1}", "wavee: 1}", 1).replace("'secret:lab-admin'", "hunter2")
    )
    code, output = plan()
    assert code == 2
    lines = text.splitlines()
    sp1_line = next(i for i, x in enumerate(lines, 1) if x.startswith("  aus1-sp1:"))
    assert f"inventory.yaml:{sp1_line}:" in output
    assert "unknown key 'wavee' in devices.aus1-sp1; did you mean 'wave'?" in output
    assert "credentials.password: a key must be a secret reference, secret:NAME" in output
    assert "hunter2" not in output  # a pasted password is never echoed
    assert "no device was touched" in output
    assert all(lab.untouched(n) for n in SPINES)


def test_a_check_longer_than_the_confirm_timer_is_refused(lab: Lab) -> None:
    lab.write_inventory(settings={"confirm_timer": 5, "check_timeout": 10})
    code, output = plan()
    assert code == 2
    assert "check_timeout (10 s) must be shorter than confirm_timer (5 s)" in output
    result = runner.invoke(app, ["push", "--stage", "lab", "--check-timeout", "40"])
    assert result.exit_code == 2  # the command-line override is checked the same way
    assert all(lab.untouched(n) for n in SPINES)


def test_a_driver_that_does_not_fit_the_platform_is_refused(lab: Lab) -> None:
    path = lab.repo / "inventory.yaml"
    path.write_text(path.read_text().replace("transport: http, driver: eos", "driver: nxos", 1))
    code, output = plan()
    assert code == 2
    assert "driver nxos pushes cisco_nxos configs, but aus1-sp1 is arista_eos" in output


def test_secrets_from_a_file_outside_git(lab: Lab, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEETME_SECRET_BGP_AUS1_BR1")
    secrets = lab.repo.parent / "lab-secrets.yaml"
    secrets.write_text(f"bgp-aus1-br1: '{SECRET_ENV['MEETME_SECRET_BGP_AUS1_BR1']}'\n")
    secrets.chmod(0o600)
    code, output = plan("--secrets", str(secrets))
    assert code == 0, output
    assert "readable by group or others" not in output
    assert SECRET_ENV["MEETME_SECRET_BGP_AUS1_BR1"] not in output


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_secrets_file_git_could_commit_is_refused(
    lab: Lab, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEETME_SECRET_BGP_AUS1_BR1")
    subprocess.run(["git", "init", "-q", str(lab.repo)], check=True)
    secrets = lab.repo / "lab-secrets.yaml"
    secrets.write_text(f"bgp-aus1-br1: '{SECRET_ENV['MEETME_SECRET_BGP_AUS1_BR1']}'\n")
    secrets.chmod(0o600)
    code, output = plan("--secrets", str(secrets))
    assert code == 2
    assert "not ignored by git" in output
    assert all(lab.untouched(n) for n in SPINES)

    (lab.repo / ".gitignore").write_text("lab-secrets.yaml\n")
    code, output = plan("--secrets", str(secrets))
    assert code == 0, output


def test_environment_names_and_masking() -> None:
    assert env_name("bgp-aus1.br1") == "MEETME_SECRET_BGP_AUS1_BR1"
    store = SecretStore({"k": 'p"w\\x'})
    shown = store.mask('json {"cmd": "password p\\"w\\\\x"} raw password p"w\\x')
    assert 'p"w' not in shown and 'p\\"w' not in shown
    assert shown.count("<<secret:k>>") == 2
    assert 'p"w' not in repr(store)


def test_the_journal_never_holds_a_value(tmp_path: Path) -> None:
    store = SecretStore({"admin": "s3cr3t-Value"})
    journal = Journal(tmp_path / "j.jsonl", store, {"run": "r", "command": "push", "stage": "lab"})
    journal.record(
        "load", "failed", device="x", detail="bad 's3cr3t-Value'", extra=["s3cr3t-Value"]
    )
    journal.close()
    text = (tmp_path / "j.jsonl").read_text()
    assert "s3cr3t-Value" not in text and text.count("<<secret:admin>>") == 2


@pytest.mark.parametrize(
    ("setting", "value", "refused"),
    [
        ("verify_grace", 600, False),
        ("verify_grace", 601, True),
        ("check_interval", 600, False),
        ("check_interval", 601, True),
    ],
)
def test_the_waits_of_a_push_are_bounded(lab: Lab, setting: str, value: int, refused: bool) -> None:
    """A wait of days would hold the stage lock and the run for days; none longer than ten
    minutes is taken."""
    lab.write_inventory(settings={setting: value})
    code, output = plan()
    assert (f"{setting}: Input should be less than or equal to 600" in output) is refused, output
    assert (code == 2) is refused


def test_an_infinite_wait_is_refused_at_its_line(lab: Lab) -> None:
    path = lab.write_inventory()
    for infinite in ("1e999", "1.0e+999"):  # a word to YAML 1.1; infinity
        path.write_text(
            path.read_text().replace('"verify_grace": 1,', f'"verify_grace": {infinite},')
        )
        code, output = plan()
        assert code == 2
        assert (
            "inventory.yaml:1:" in output and "settings.verify_grace: Input should be a" in output
        )
        path = lab.write_inventory()
    assert all(lab.untouched(n) for n in SPINES)


@pytest.mark.parametrize(
    ("written", "said"),
    [("wave: 1}", "wave: true}"), ("port: ", 'port: "')],
)
def test_a_value_of_the_wrong_type_is_refused_not_converted(
    lab: Lab, written: str, said: str
) -> None:
    path = lab.repo / "inventory.yaml"
    text = path.read_text()
    if written == "port: ":  # a quoted port number
        port = text.split("port: ", 1)[1].split(",", 1)[0]
        text = text.replace(f"port: {port},", f'port: "{port}",', 1)
    else:
        text = text.replace(written, said, 1)
    path.write_text(text)
    code, output = plan()
    assert code == 2, output
    assert "aus1-sp1" in output and "no device was touched" in output


def test_a_bad_option_is_named_and_reported_with_every_other_problem(
    lab: Lab, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEETME_SECRET_BGP_AUS1_BR1")
    result = runner.invoke(
        app, ["push", "--stage", "lab", "--confirm-timer", "100000", "--check-timeout", "-1"]
    )
    code, output = result.exit_code, result.output
    assert code == 2, output
    assert "--confirm-timer 100000: Input should be less than or equal to 3600" in output
    assert "--check-timeout -1.0: Input should be greater than or equal to 0" in output
    assert "secret 'bgp-aus1-br1' is not set" in output
    assert "3 problem(s); no device was touched." in output


def test_a_login_given_as_a_secret_is_refused(lab: Lab) -> None:
    """The login must be one of the rendered users, whose names every config prints: as a
    secret it could be neither compared with them (a push would delete its own login) nor
    masked, so the inventory takes the name written out."""
    path = lab.write_inventory()
    text = path.read_text()
    path.write_text(text.replace("{username: netops,", "{username: 'secret:lab-user',", 1))
    assert "secret:lab-user" in path.read_text()
    code, output = plan()
    assert code == 2
    line = next(i for i, x in enumerate(path.read_text().splitlines(), 1) if "lab-user" in x)
    assert f"inventory.yaml:{line}:" in output
    assert "the login must be one of the rendered configs' local users" in output
    assert all(lab.untouched(n) for n in SPINES)


@pytest.mark.parametrize(
    ("host", "refused"),
    [
        ("127.0.0.1", False),
        ("sw1.lab.example", False),
        ("fe80::1%eth0", False),
        ("192.168.10.101@127.0.0.1", True),  # userinfo: the login goes to 127.0.0.1
        ("127.0.0.1:18765/#", True),  # a port and a fragment: another port
        ("sw1.lab.example?", True),
        ("127.0.0.1 ", True),
        ("fe80::1%eth0@evil", True),
        ("-sw1", True),
    ],
)
def test_a_host_is_an_address_or_a_name_only(lab: Lab, host: str, refused: bool) -> None:
    """A host the drivers would read as a URL with another authority sends the password
    there: only an IP address or an RFC 1123 host name is taken."""
    path = lab.write_inventory()
    lines = path.read_text().splitlines()
    index = next(i for i, x in enumerate(lines) if x.startswith("  aus1-sp1:"))
    lines[index] = lines[index].replace("host: 127.0.0.1,", f"host: {json.dumps(host)},")
    path.write_text("\n".join(lines) + "\n")
    code, output = plan("--device", "aus1-sp1")
    if refused:
        assert code == 2
        assert f"inventory.yaml:{index + 1}:" in output
        assert "is neither an IP address nor a host name" in output
        assert lab.untouched("aus1-sp1")
    else:  # past every pre-flight check: clean, or failing only at the connection
        assert "is neither an IP address nor a host name" not in output
        assert code in (0, 1), output


def test_two_devices_at_one_host_and_port_are_refused(lab: Lab) -> None:
    path = lab.write_inventory()
    lines = path.read_text().splitlines()
    sp1 = next(i for i, x in enumerate(lines) if x.startswith("  aus1-sp1:"))
    sp2 = next(i for i, x in enumerate(lines) if x.startswith("  aus1-sp2:"))
    port = lines[sp1].split("port: ")[1].split(",")[0]
    lines[sp2] = re.sub(r"port: \d+,", f"port: {port},", lines[sp2], count=1)
    path.write_text("\n".join(lines) + "\n")
    code, output = plan()
    assert code == 2
    assert (
        f"inventory.yaml:{sp2 + 1}:" in output
        and f"aus1-sp2 is at 127.0.0.1 port {port}, as aus1-sp1 is" in output
    )
    assert all(lab.untouched(n) for n in SPINES)


@pytest.mark.parametrize("alias", ["localhost", "LOCALHOST.", "::ffff:127.0.0.1"])
def test_an_alias_of_another_devices_address_is_refused(lab: Lab, alias: str) -> None:
    path = lab.write_inventory()
    lines = path.read_text().splitlines()
    sp1 = next(i for i, x in enumerate(lines) if x.startswith("  aus1-sp1:"))
    sp3 = next(i for i, x in enumerate(lines) if x.startswith("  aus1-sp3:"))
    port = lines[sp1].split("port: ")[1].split(",")[0]
    lines[sp3] = re.sub(
        r"host: 127\.0\.0\.1, port: \d+,", f"host: '{alias}', port: {port},", lines[sp3]
    )
    path.write_text("\n".join(lines) + "\n")
    code, output = plan()
    assert code == 2, output
    column = lines[sp3].index(f"'{alias}'") + 1
    assert f"inventory.yaml:{sp3 + 1}:{column}: error[bad-value]" in output
    assert f"aus1-sp3 is at {alias} port {port}, as aus1-sp1 is (127.0.0.1)" in output
    assert all(lab.untouched(n) for n in SPINES)


def _one_bad_value_on_line_3(path: Path) -> Problem:
    """The one problem an inventory whose device b (line 3) clashes with device a is refused
    with."""
    with pytest.raises(IntentError) as caught:
        load_inventory(path)
    [problem] = caught.value.problems
    assert problem.location.line == 3 and problem.kind == "bad-value"
    return problem


@pytest.mark.parametrize(
    ("first", "second", "shared"),
    [
        ("{host: 10.0.0.1, driver: eos}", "{host: 10.0.0.1, port: 443, driver: eos}", True),
        (
            "{host: 10.0.0.1, transport: http, driver: eos}",
            "{host: 10.0.0.1, port: 80, driver: eos}",
            True,  # one socket, 10.0.0.1:80, whichever protocol each expects there
        ),
        (
            "{host: 10.0.0.1, transport: http, driver: eos}",
            "{host: 10.0.0.1, port: 80, transport: http, driver: eos}",
            True,
        ),
        ("{host: 10.0.0.1, driver: nvue}", "{host: 10.0.0.1, port: 8765, driver: nvue}", True),
        (
            "{host: 10.0.0.1, driver: iosxr_netconf}",
            "{host: 10.0.0.1, port: 830, driver: iosxr_netconf}",
            True,
        ),
        ("{host: 10.0.0.1, driver: eos}", "{host: 10.0.0.1, driver: nvue}", False),
        ("{host: 10.0.0.1, driver: eos}", "{host: 10.0.0.2, driver: eos}", False),
        ("{host: sp1.lab, driver: eos}", "{host: SP1.LAB., driver: eos}", True),
    ],
)
def test_the_drivers_default_port_is_filled_in_before_comparing(
    tmp_path: Path, first: str, second: str, shared: bool
) -> None:
    path = tmp_path / "inventory.yaml"
    common = "stage: lab, wave: 1, credentials: {username: u, password: 'secret:p'}"
    one = first.replace("}", f", {common}}}")
    two = second.replace("}", f", {common}}}")
    path.write_text(f"devices:\n  a: {one}\n  b: {two}\n")
    if not shared:
        load_inventory(path)
        return
    problem = _one_bad_value_on_line_3(path)
    assert "b is at" in problem.message and "as a is" in problem.message


@pytest.mark.parametrize(
    ("value", "refused"),
    [
        (SECRET_ENV["MEETME_SECRET_AUS1_NETOPS_HASH"], False),  # a SHA-512-crypt hash
        ("Netops-Plain-77", True),  # the password itself, exported where its hash belongs
        ("$5$Lab0salt$OABYBFmG1QSa6AlQKIlptTXMEsGLa1tnpbjob5Qmn87", True),  # SHA-256: not EOS's
        (SECRET_ENV["MEETME_SECRET_AUS1_NETOPS_HASH"][:-1], True),  # one character short
    ],
)
def test_a_users_hash_secret_must_be_the_hash_its_device_takes(
    lab: Lab, monkeypatch: pytest.MonkeyPatch, value: str, refused: bool
) -> None:
    """EOS `secret sha512` stores the string as given: a password or the other algorithm's
    hash there is an account nobody can log in to, found only after the push."""
    monkeypatch.setenv("MEETME_SECRET_AUS1_NETOPS_HASH", value)
    code, output = plan()
    message = "secret 'aus1-netops-hash' (from MEETME_SECRET_AUS1_NETOPS_HASH) stands where"
    if refused:
        assert code == 2
        assert message in output and "a SHA-512-crypt hash ($6$..." in output
        assert value not in output
        assert all(lab.untouched(n) for n in SPINES)
    else:
        assert message not in output


@pytest.mark.parametrize(
    ("host", "refused"),
    [
        ("127.0.0.255", False),  # the highest octet: an IPv4 address
        ("127.0.0.256", True),  # one past it: no address, and no name either
        ("10.0.0.999", True),
        ("1.2.3", True),  # three numbers: some resolvers read it as 1.2.0.3
        ("sw1.lab", False),
        ("sw1.123", True),  # the last label all digits
        ("sw1.123.", True),  # the same, fully qualified
        ("123", True),
        ("sw1.lab1", False),  # digits in the last label, not only digits
    ],
)
def test_a_dotted_number_that_is_no_ipv4_address_is_refused(
    lab: Lab, host: str, refused: bool
) -> None:
    """RFC 1123 section 2.1: a host name's last label is never all digits, so `10.0.0.999` is
    neither an address nor a name. It is named at its inventory line before any connection
    (exit 2), not left to fail at `connect` with the resolver's 'Name or service not known'."""
    path = lab.write_inventory()
    lines = path.read_text().splitlines()
    index = next(i for i, x in enumerate(lines) if x.startswith("  aus1-sp2:"))
    lines[index] = lines[index].replace("host: 127.0.0.1,", f"host: {json.dumps(host)},")
    path.write_text("\n".join(lines) + "\n")
    column = lines[index].index(json.dumps(host)) + 1
    code, output = plan("--device", "aus1-sp2")
    if refused:
        assert code == 2, output
        top = host.rstrip(".").rsplit(".", 1)[-1]
        assert (
            f"inventory.yaml:{index + 1}:{column}: error[bad-value]: devices.aus1-sp2.host: "
            f"host '{host}' is neither an IP address nor a host name: its last label '{top}' "
            "is all digits" in " ".join(output.split())
        ), output
        assert "1 problem(s); no device was touched." in output
        assert lab.untouched("aus1-sp2")
    else:  # past every pre-flight check: clean, or failing only at the connection
        assert "inventory.yaml" not in output, output
        assert code in (0, 1), output


def test_lint_errors_do_not_hide_the_inventorys_problems(
    lab: Lab, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The intent's lint errors and the inventory's problems are independent: one run names
    both (exit 2, the inventory's problem at its line); lint errors alone stay exit 1."""
    failing = SimpleNamespace(errors=["one", "two"])
    monkeypatch.setattr("meetme.pipeline.lint", lambda folder: failing)
    code, output = plan()
    assert code == 1, output
    assert "lint found 2 error(s) in the intent; run `meetme lint`" in output

    path = lab.repo / "inventory.yaml"
    text = path.read_text()
    path.write_text(text.replace("wave: 1}", "wavee: 1}", 1))
    line = next(i for i, x in enumerate(text.splitlines(), 1) if x.startswith("  aus1-sp1:"))
    code, output = plan()
    assert code == 2, output
    assert "lint found 2 error(s) in the intent; run `meetme lint`" in output
    assert f"inventory.yaml:{line}:" in output
    assert "unknown key 'wavee' in devices.aus1-sp1; did you mean 'wave'?" in output
    assert f"inventory.yaml:{line}:3: error[missing-key]: devices.aus1-sp1 has no 'wave'" in output
    assert "2 problem(s); no device was touched." in output
    assert all(lab.untouched(n) for n in SPINES)


@pytest.mark.parametrize(
    ("host", "read"),
    [
        ("0x7f000001", "127.0.0.1"),  # one hexadecimal number: the loopback, as sp1 is
        ("0x7f.0.0.0x2", "127.0.0.2"),
        ("0xdead.lab", None),  # a name: its last label is letters
        ("deadbeef", None),  # no 0x: a name, never a number to the resolver
    ],
)
def test_a_host_the_resolver_reads_as_an_address_is_refused(
    tmp_path: Path, host: str, read: str | None
) -> None:
    """glibc's inet_aton, which getaddrinfo tries before DNS, reads `0x7f000001` as
    127.0.0.1: written so, a device's address escapes the duplicate-host check."""
    path = tmp_path / "inventory.yaml"
    common = "driver: eos, stage: lab, wave: 1, credentials: {username: u, password: 'secret:p'}"
    path.write_text(
        f"devices:\n  a: {{host: 127.0.0.1, {common}}}\n  b: {{host: '{host}', {common}}}\n"
    )
    if read is None:
        load_inventory(path)
        return
    problem = _one_bad_value_on_line_3(path)
    assert problem.message.endswith(
        f"host '{host}' is read by the system's resolver as the IPv4 address {read} "
        f"(hexadecimal numbers); write the address as {read}"
    )
