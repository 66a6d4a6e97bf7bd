"""Secrets are referenced by name: no value from the environment or a secrets file ever
reaches rendered/, while every keyed session carries a clearly marked placeholder."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import line_of
from helpers import runner, snapshot

from meetme.cli import app
from meetme.core.secret_refs import PLACEHOLDER_RE

VALUES = {
    "transit-a": "Tr4nsit-A-s3cret",
    "aws-dx-aus1": "aws-md5-value-0001",
    "ix-syd-rs": "rs-key-value-0002",
}


def test_rendered_configs_carry_placeholders_never_values(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in VALUES.items():
        monkeypatch.setenv(f"MEETME_SECRET_{name.upper().replace('-', '_')}", value)
    secrets_file = example / "secrets.yaml"
    secrets_file.write_text("".join(f"{n}: {v}\n" for n, v in VALUES.items()))
    monkeypatch.setenv("MEETME_SECRETS_FILE", str(secrets_file))

    result = runner.invoke(app, ["render"])
    assert result.exit_code == 0, result.output
    files = snapshot(example / "rendered")
    text = b"\n".join(files.values()).decode()
    for value in VALUES.values():
        assert value not in text
    referenced = set(PLACEHOLDER_RE.findall(text))
    assert set(VALUES) <= referenced
    # the AWS key sits on the EOS border leaves that run the Direct Connect sessions
    assert "<<secret:aws-dx-aus1>>" in files["aus1/aus1-bl1.cfg"].decode()


def test_intent_rejects_a_literal_key(example: Path) -> None:
    peering = example / "intent/aus1/peering.yaml"
    text = peering.read_text()
    peering.write_text(text.replace('key: "secret:transit-a"', 'key: "hunter2"', 1))
    result = runner.invoke(app, ["lint"])
    assert result.exit_code == 2
    assert "a key must be a secret reference" in result.output
    assert "hunter2" not in result.output  # a pasted key is never echoed into CI logs


def test_every_external_session_of_the_example_carries_its_key_placeholder(
    example: Path,
) -> None:
    """The example keys every external session (AWS requires MD5; the others agreed one), and
    each rendered border config carries the placeholder of every key its sessions use."""
    from meetme.generators.render import output_name

    from meetme.pipeline import device_models, lint

    assert runner.invoke(app, ["render"]).exit_code == 0
    models = device_models(lint(example / "intent"))
    external = [(m, n) for m in models.values() for n in m.bgp.neighbors if n.external]
    assert {m.platform for m, _ in external} == {
        "cisco_iosxr",
        "arista_eos",
        "cisco_nxos",
        "nvidia_nvue",
    }
    for model, neighbor in external:
        assert neighbor.password is not None, f"{model.hostname} {neighbor.description}"
        text = (example / "rendered" / output_name(model)).read_text()
        assert neighbor.password in text, f"{model.hostname} {neighbor.description}"


# ---- issue #9: masking masks whole values only; short secrets are refused -------------------


def test_masking_replaces_a_value_only_where_it_stands_as_a_whole_token() -> None:
    from meetme.deploy.secret_store import SecretStore

    store = SecretStore({"bgp-r": "router12"})
    ordinary = "router123 xrouter12 router12_b bgprouter12 router12é"
    assert store.mask(ordinary) == ordinary  # inside a longer word: left alone
    shown = store.mask(
        "router12 password 7 router12\n key router12. password: 'router12' "
        '"router12" (router12) <router12> a-router12-b router12'
    )
    assert shown == (
        "<<secret:bgp-r>> password 7 <<secret:bgp-r>>\n key <<secret:bgp-r>>. password: "
        "'<<secret:bgp-r>>' \"<<secret:bgp-r>>\" (<<secret:bgp-r>>) <<<secret:bgp-r>>> "
        "a-<<secret:bgp-r>>-b <<secret:bgp-r>>"
    )


def test_masking_sees_a_value_after_an_escape_of_a_json_body_or_a_repr() -> None:
    import json

    from meetme.deploy.secret_store import SecretStore

    store = SecretStore({"k": "router12"})
    body = json.dumps({"cmds": ["hostname router123", "router12", "\trouter12"]})
    assert store.mask(body) == (
        '{"cmds": ["hostname router123", "<<secret:k>>", "\\t<<secret:k>>"]}'
    )
    assert store.mask(repr("line\nrouter12\x1brouter12")) == (
        "'line\\n<<secret:k>>\\x1b<<secret:k>>'"
    )
    # `\\n` may be an escaped backslash before a word: masking it is the safe side; a plain
    # letter before the value makes it a longer word
    assert store.mask("\\\\nrouter12 xnrouter12") == "\\\\n<<secret:k>> xnrouter12"


def test_a_value_starting_or_ending_in_punctuation_is_bounded_by_it() -> None:
    from meetme.deploy.secret_store import SecretStore

    store = SecretStore({"hash": "$6$salt$Abc/def", "key": "bgp-Key-zX93#p"})
    assert store.mask("secret sha512 $6$salt$Abc/def") == "secret sha512 <<secret:hash>>"
    assert store.mask("x$6$salt$Abc/def") == "x<<secret:hash>>"  # `$` begins the token
    assert store.mask("bgp-Key-zX93#pq abgp-Key-zX93#p") == "bgp-Key-zX93#pq abgp-Key-zX93#p"
    assert store.mask("'bgp-Key-zX93#p'") == "'<<secret:key>>'"


def test_a_placeholder_written_by_the_mask_is_never_masked_again() -> None:
    from meetme.deploy.secret_store import SecretStore

    # the value of one secret is the name of the other: one scan, no placeholder in a placeholder
    store = SecretStore({"admin-pass": "bgp-edge-key", "bgp-edge-key": "Zq7-unique-value"})
    assert store.mask("password 0 Zq7-unique-value") == "password 0 <<secret:bgp-edge-key>>"


@pytest.mark.parametrize(
    ("value", "accepted"),
    [("eos", False), ("7-chars", False), ("8-chars!", True), ("a-much-longer-key", True)],
)
def test_a_secret_shorter_than_eight_characters_is_refused_by_name(
    value: str, accepted: bool
) -> None:
    from helpers import resolved
    from meetme.deploy.secret_store import MIN_LENGTH

    from meetme.core.problems import Location, Problem

    assert MIN_LENGTH == 8
    got = resolved("bgp-edge", value, Location("rendered/aus1/aus1-bl1.cfg", 381, 38))
    if accepted:
        assert got == value
        return
    assert isinstance(got, Problem)
    assert str(got.location) == "rendered/aus1/aus1-bl1.cfg:381:38"
    assert got.kind == "short-secret"
    assert (
        "secret 'bgp-edge' (from MEETME_SECRET_BGP_EDGE) is shorter than 8 characters"
        in got.message
    )
    assert value not in got.message and str(len(value)) not in got.message


def test_a_malformed_key_of_a_secrets_file_is_not_quoted(tmp_path: Path) -> None:
    """An env-file habit (`NAME=value`) or a value pasted as a key must not reach a CI log."""
    from meetme.deploy.secret_store import read_secrets_file

    from meetme.core.problems import IntentError

    path = tmp_path / "secrets.yaml"
    path.write_text("bgp-a: fine-value-1\nbgp-b=Sup3rS3cretValue: x\n")
    with pytest.raises(IntentError) as caught:
        read_secrets_file(path)
    [problem] = caught.value.problems
    assert problem.location.line == 2 and problem.kind == "bad-value"
    assert "this key is not a secret name" in problem.message
    assert "Sup3r" not in str(problem)


@pytest.mark.parametrize(
    "written",
    ["!Tr4nsitK3yValue", "*Tr4nsitK3yValue", "&Tr4nsitK3yValue x\nbgp-b: &Tr4nsitK3yValue y"],
)
def test_a_secret_read_as_a_tag_alias_or_anchor_is_not_quoted(tmp_path: Path, written: str) -> None:
    """A password starting with `!`, `*` or `&` is YAML syntax: the error says where, never
    what (a secrets file shows no text of its own)."""
    from meetme.deploy.secret_store import read_secrets_file

    from meetme.core.problems import IntentError

    path = tmp_path / "secrets.yaml"
    path.write_text(f"bgp-a: {written}\n")
    with pytest.raises(IntentError) as caught:
        read_secrets_file(path)
    [problem] = caught.value.problems
    assert problem.location.line in (1, 2)
    assert "Tr4nsitK3yValue" not in str(problem)


@pytest.mark.parametrize("written", ["!Sup3rS3cretKey", "!!binary aGVsbG8="])
def test_an_intent_tag_under_a_key_named_like_a_secret_is_not_quoted(
    example: Path, written: str
) -> None:
    """In the intent, a tag is quoted where it helps (`cooling_zone: !custom`), but not under
    `key:`, where it is most likely the key itself pasted in."""
    from meetme.core.problems import IntentError
    from meetme.intent.loader import load_intent

    peering = example / "intent/aus1/peering.yaml"
    peering.write_text(peering.read_text().replace('key: "secret:transit-a"', f"key: {written}", 1))
    with pytest.raises(IntentError) as caught:
        load_intent(example / "intent")
    [problem] = [p for p in caught.value.problems if p.kind == "yaml-tag"]
    assert problem.message.startswith("unknown YAML tag; intent is plain YAML")
    assert written.split()[0] not in problem.message


# ---- a secret value never restructures the file it is pushed in -----------------------------


@pytest.mark.parametrize(
    "value",
    [
        "gcpKey'\u2028  injected-key: 'x",  # a YAML line break inside the value
        "gcpKey'\x85  injected-key: 'x",  # NEL, a line break to YAML
        "gcpKey\u2029more-of-it",
        "gcpKey\tmore-of-it",
        "gcpKey\x1bmore-of-it",
        "gcpKey\nmore-of-it",
    ],
)
def test_a_secret_holding_a_line_break_or_control_character_is_refused(value: str) -> None:
    from meetme.deploy.secret_store import resolve

    from meetme.core.problems import IntentError, Location

    where = {"gcp-ic-md5": Location("rendered/aus1/aus1-bl5.yaml", 300, 21)}
    with pytest.raises(IntentError) as caught:
        resolve(where, where, None, {"MEETME_SECRET_GCP_IC_MD5": value})
    [problem] = caught.value.problems
    assert problem.kind == "bad-secret"
    assert value not in problem.message


def test_a_quote_in_a_secret_stays_inside_the_nvue_scalar() -> None:
    """NVUE secret lines hold the value between single quotes: a `'` is doubled, so the parsed
    tree holds the whole password and nothing else; on a CLI line it is written as it is."""
    import yaml
    from meetme.deploy.secret_positions import VALUE_ESCAPES
    from meetme.deploy.secret_store import SecretStore

    store = SecretStore({"k": "gcpKey' #rest: 'x"})
    text = "- set:\n    password: '<<secret:k>>'\n"
    pushed = yaml.safe_load(store.substitute(text, VALUE_ESCAPES["nvidia_nvue"]))
    assert pushed == [{"set": {"password": "gcpKey' #rest: 'x"}}]
    assert "cisco_iosxr" not in VALUE_ESCAPES
    assert store.substitute(" password 0 <<secret:k>>") == " password 0 gcpKey' #rest: 'x"


def test_secrets_given_through_a_pipe_are_read(tmp_path: Path) -> None:
    """`--secrets <(pass show lab)`: the values never touch a disk; the file is a pipe."""
    import os
    import threading

    from meetme.deploy.secret_store import read_secrets_file

    fifo = tmp_path / "secrets.fifo"
    os.mkfifo(fifo)

    def write() -> None:
        with fifo.open("w", encoding="utf-8") as pipe:
            pipe.write("lab-admin: 'Adm1n-pw-Q7v!lab'\n")

    writer = threading.Thread(target=write)
    writer.start()
    assert read_secrets_file(fifo) == {"lab-admin": "Adm1n-pw-Q7v!lab"}
    writer.join()


def test_a_pipe_whose_writer_is_done_before_it_is_read_does_not_hang(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Report: the full suite hung in the test above. The pipe was opened twice, a first
    look that let the writer write and close, then a read that waited for a writer that
    would never come again. Here the first look is slow (fstat takes 0.3 s), so a fast
    writer is always done by then: the values are read, once."""
    import os
    import threading

    from meetme.deploy.secret_store import read_secrets_file

    fifo = tmp_path / "secrets.fifo"
    os.mkfifo(fifo)
    real_fstat = os.fstat

    def slow_fstat(fd: int) -> os.stat_result:
        time.sleep(0.3)
        return real_fstat(fd)

    monkeypatch.setattr(os, "fstat", slow_fstat)

    def write() -> None:
        with fifo.open("w", encoding="utf-8") as pipe:
            pipe.write("lab-admin: 'Adm1n-pw-Q7v!lab'\n")

    read: list[dict[str, str]] = []
    writer = threading.Thread(target=write)
    reader = threading.Thread(target=lambda: read.append(read_secrets_file(fifo)), daemon=True)
    writer.start()
    reader.start()
    writer.join(10)
    reader.join(10)
    if reader.is_alive():  # let the stuck reader go before failing
        with fifo.open("w", encoding="utf-8"):
            pass
    assert read == [{"lab-admin": "Adm1n-pw-Q7v!lab"}]


@pytest.mark.parametrize(
    ("size", "refused"), [(4 * 1024 * 1024, False), (4 * 1024 * 1024 + 1, True)]
)
def test_a_secrets_file_too_large_is_not_told_to_split(
    tmp_path: Path, size: int, refused: bool
) -> None:
    from meetme.deploy.secret_store import read_secrets_file

    from meetme.core.problems import IntentError

    path = tmp_path / "secrets.yaml"
    line = "lab-admin: 'Adm1n-pw-Q7v!lab'\n"
    path.write_text(line + "#" * (size - len(line) - 1) + "\n")
    assert path.stat().st_size == size
    if not refused:
        assert read_secrets_file(path) == {"lab-admin": "Adm1n-pw-Q7v!lab"}
        return
    with pytest.raises(IntentError) as caught:
        read_secrets_file(path)
    [problem] = caught.value.problems
    assert problem.kind == "too-large"
    assert "meetme reads from one file; is this the right file?" in problem.message
    assert "split" not in problem.message


# ---- a reference's own fault is named; masking never rewrites the rule's text ----------------

# What every message about a malformed reference ends with (written out here, not imported).
WHAT_A_NAME_IS = (
    "a secret's name is 1 to 63 letters, digits, '.', '_' or '-', beginning with a letter or digit"
)
TRANSIT_KEY = (
    "intent/aus1/peering.yaml:33:16: error[bad-value]: sites.aus1.peering.transits.transit-a.key: "
)


def lint_with_transit_key(example: Path, key: str) -> tuple[int, list[str]]:
    """`meetme lint` with transit-a's `key:` written as `key` (line 33, column 16)."""
    peering = example / "intent/aus1/peering.yaml"
    text = peering.read_text()
    assert text.splitlines()[32] == '          key: "secret:transit-a"'
    peering.write_text(text.replace('key: "secret:transit-a"', f'key: "{key}"', 1))
    result = runner.invoke(app, ["lint"])
    return result.exit_code, result.output.splitlines()


def test_a_reference_whose_name_is_too_long_names_the_limit(example: Path) -> None:
    """A well-formed reference to a carrier's long name is not 'the key itself': the message
    says the name is too long, by how much, and what a name may be."""
    name = "transit-two-a-very-long-but-legitimate-carrier-name-for-amsterdam"
    assert len(name) == 65
    assert lint_with_transit_key(example, f"secret:{name}") == (
        2,
        [
            TRANSIT_KEY + "a key must be a secret reference, secret:NAME, and this one's name is "
            f"65 characters long, longer than the limit of 63; {WHAT_A_NAME_IS}",
            "1 problem(s) make the intent unusable; nothing was written.",
        ],
    )


@pytest.mark.parametrize(("length", "refused"), [(63, False), (64, True)])
def test_a_secrets_name_may_be_63_characters_long(
    example: Path, length: int, refused: bool
) -> None:
    name = "transit-" + "a" * (length - len("transit-"))
    assert len(name) == length
    code, output = lint_with_transit_key(example, f"secret:{name}")
    if not refused:
        assert code == 0, output
        return
    assert (code, output[0]) == (
        2,
        TRANSIT_KEY + "a key must be a secret reference, secret:NAME, and this one's name is "
        f"64 characters long, longer than the limit of 63; {WHAT_A_NAME_IS}",
    )


def test_a_reference_naming_no_secret_says_so_in_the_rules_own_words(example: Path) -> None:
    """`secret:` alone: the masking once took the value `secret:` out of the rule's own
    `secret:NAME` ('a hidden valueNAME')."""
    assert lint_with_transit_key(example, "secret:") == (
        2,
        [
            TRANSIT_KEY + "a key must be a secret reference, secret:NAME, and this one names no "
            f"secret: write the secret's name after the colon; {WHAT_A_NAME_IS}",
            "1 problem(s) make the intent unusable; nothing was written.",
        ],
    )


def test_a_password_hash_naming_no_secret_says_so_too(example: Path) -> None:
    site = example / "intent/aus1/site.yaml"
    text = site.read_text()
    line = line_of(site, 'password_hash: "secret:aus1-netops-hash"')
    site.write_text(text.replace('"secret:aus1-netops-hash"', '"secret:"', 1))
    result = runner.invoke(app, ["lint"])
    assert (result.exit_code, result.output.splitlines()[0]) == (
        2,
        f"intent/aus1/site.yaml:{line}:26: error[bad-value]: "
        "sites.aus1.management.users.netops.password_hash: a key must be a secret reference, "
        "secret:NAME, and this one names no secret: write the secret's name after the colon; "
        f"{WHAT_A_NAME_IS}",
    )


@pytest.mark.parametrize("key", ["secret", "NAME", "key", "hunter2"])
def test_a_literal_key_gets_the_rule_as_written_and_is_never_echoed(
    example: Path, key: str
) -> None:
    """The rule's own words stay whole whatever the key is (`key: secret` once read 'a key
    must be a a hidden value reference'); the key is not printed anywhere but in them."""
    code, output = lint_with_transit_key(example, key)
    rule = (
        "a key must be a secret reference, secret:NAME, never the key itself; keep the value "
        "in the environment or a secrets file outside git"
    )
    assert (code, output) == (
        2,
        [TRANSIT_KEY + rule, "1 problem(s) make the intent unusable; nothing was written."],
    )
    assert "hidden" not in "\n".join(output)


def test_a_value_hidden_under_a_secret_like_key_is_masked_only_where_it_is_quoted(
    example: Path,
) -> None:
    """A validator that quotes the value (a prefix's) has it masked there and where it repeats
    it as a word of its own, never inside the rule's text: the value `24` leaves the `/24` of
    the advice alone. `private_aggregates` is named like a secret (`private`)."""
    organisation = example / "intent/organisation.yaml"
    text = organisation.read_text()
    assert text.splitlines()[5] == "  aggregates:"
    organisation.write_text(
        text.replace("  aggregates:", '  private_aggregates: ["24", "10.9.0.0"]\n  aggregates:', 1)
    )
    result = runner.invoke(app, ["lint"])
    advice = "has no prefix length; write the prefix as address/length, e.g."
    assert (result.exit_code, result.output.splitlines()[:2]) == (
        2,
        [
            "intent/organisation.yaml:6:24: error[bad-value]: organisation.private_aggregates.0: "
            f"a hidden value {advice} a hidden value/24",
            "intent/organisation.yaml:6:30: error[bad-value]: organisation.private_aggregates.1: "
            f"a hidden value {advice} a hidden value/24",
        ],
    )
    assert "10.9" not in result.output
