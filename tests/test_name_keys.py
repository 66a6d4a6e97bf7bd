"""A name is its mapping key's text exactly as written (README, "The intent format"): a rack keyed
`12:` or `012:` is named "12" or "012", never YAML's number (012 would be octal 10), and a value
naming it is text. An unquoted number where a name is expected is one error at that value."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import line_of, replace_in
from typer.testing import CliRunner

from meetme.cli import app
from meetme.intent.loader import load_intent

ROOMS = "intent/aus1/rooms.yaml"
DEVICES = "intent/aus1/devices.yaml"
TENANTS = "intent/aus1/tenants.yaml"


def _rename_rack(repo: Path, key: str, value: str) -> None:
    """aus1's rack dh1-r11 keyed `key`, and every reference to it written `value`."""
    replace_in(repo / ROOMS, "      dh1-r11: {room: aus1-dh1}", f"      {key}: {{room: aus1-dh1}}")
    replace_in(repo / DEVICES, "rack: dh1-r11", f"rack: {value}", count=2)
    replace_in(repo / TENANTS, "dh1-r11]", f"{value}]", count=2)
    replace_in(repo / TENANTS, "dh1-r11, dh2-r10]", f"{value}, dh2-r10]")


@pytest.mark.parametrize("key", ["12", "012"])
def test_a_number_as_a_key_is_the_name_as_written(example: Path, key: str) -> None:
    _rename_rack(example, key, f'"{key}"')
    site = load_intent(example / "intent").intent.sites["aus1"]
    assert key in site.racks and site.devices["aus1-lf5"].rack == key
    result = CliRunner().invoke(app, ["lint"])
    assert result.exit_code == 0 and "0 error(s)" in result.output, result.output


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("12", "12", 'error[wrong-type]: sites.aus1.devices.aus1-lf5.rack: expected text, got '
         'the number 12; quote it: "12"'),
        ("012", "012", "error[yaml-ambiguous]: 012 has a leading zero: YAML 1.1 reads it as "
         'octal, i.e. 10; write 12 for the number, or quote it ("012") for text'),
        # a number Python writes otherwise is quoted as written: the rack is "0x0c", not "12"
        ("0x0c", "0x0c", 'error[wrong-type]: sites.aus1.devices.aus1-lf5.rack: expected text, '
         'got the number 0x0c; quote it: "0x0c"'),
        ("1.10", "1.10", 'error[wrong-type]: sites.aus1.devices.aus1-lf5.rack: expected text, '
         'got the number 1.10; quote it: "1.10"'),
    ],
)  # fmt: skip
def test_an_unquoted_number_naming_it_is_one_error_at_the_value(
    example: Path, key: str, value: str, message: str
) -> None:
    _rename_rack(example, key, f'"{key}"')
    replace_in(example / DEVICES, f'rack: "{key}"', f"rack: {value}")  # aus1-lf5's only
    line = line_of(example / DEVICES, f"rack: {value}")
    result = CliRunner().invoke(app, ["lint"])
    errors = [x for x in result.output.splitlines() if ": error[" in x]
    assert result.exit_code == 2 and errors == [f"{DEVICES}:{line}:15: {message}"], result.output
