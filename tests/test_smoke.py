from pathlib import Path

from conftest import findings_of, line_of, lint_repo, replace_in


def test_example_is_clean(example: Path) -> None:
    result = lint_repo(example)
    assert result.errors == []


def test_phy001_second_border_in_first_mdf(example: Path) -> None:
    devices = example / "intent/aus1/devices.yaml"
    replace_in(devices, "room: aus1-mdf-b", "room: aus1-mdf-a")
    line = line_of(devices, "room: aus1-mdf-a", occurrence=2)
    hits = findings_of(lint_repo(example), "PHY-001")
    assert hits == [
        f"intent/aus1/devices.yaml:{line}: border aus1-br2 shares MDF aus1-mdf-a with aus1-br1"
    ]
