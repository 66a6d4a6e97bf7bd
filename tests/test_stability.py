"""Stable allocation: a one-line intent change gives a small config diff."""

from __future__ import annotations

from pathlib import Path

from helpers import changed_files, render

NEW_LEAF = """
      aus1-lf9:
        id: 109
        role: leaf
        platform: nvidia_nvue
        model: SN5600
        room: aus1-dh1
        rack: dh1-r01
        management: 192.168.10.109/24
"""


def test_adding_a_leaf_changes_only_the_spines_it_connects_to(example: Path) -> None:
    before = render(example)
    with (example / "intent/aus1/devices.yaml").open("a") as devices:
        devices.write(NEW_LEAF)
    after = render(example)
    assert changed_files(before, after) == {
        "aus1/aus1-lf9.yaml",
        "aus1/aus1-sp1.cfg",
        "aus1/aus1-sp2.cfg",
        "aus1/aus1-sp3.cfg",
        "aus1/aus1-sp4.cfg",
    }


def test_adding_an_explicit_link_changes_only_its_two_ends(example: Path) -> None:
    before = render(example)
    with (example / "intent/aus1/links.yaml").open("a") as links:
        links.write("""\
      - a: {device: aus1-lf1, interface: swp40}
        b: {device: aus1-lf2, interface: swp40}
        index: 64
        speed: 400G
""")
    after = render(example)
    assert changed_files(before, after) == {"aus1/aus1-lf1.yaml", "aus1/aus1-lf2.yaml"}


def test_device_order_in_the_file_does_not_matter(example: Path) -> None:
    before = render(example)
    devices = example / "intent/aus1/devices.yaml"
    text = devices.read_text()
    # move the border pair to the end of the file
    start, end = text.index("      # Border pair"), text.index("      # Spines")
    devices.write_text(text[:start] + text[end:] + text[start:end])
    assert render(example) == before
