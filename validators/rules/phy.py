"""PHY-*: physical layout and failure domains (STANDARDS.md section 1)."""

from __future__ import annotations

from collections.abc import Iterator

from .engine import Hit, SiteContext, rule

STANDARDS = "STANDARDS.md section 1"


@rule(
    "PHY-001", "error", "Border group members live in different MDFs",
    "One room event (fire suppression, water, room power or cooling loss, wrong-room "
    "maintenance) must not take out all Internet and cloud egress.",
    "TIA-942 entrance room / MDA separation; "
    "https://docs.aws.amazon.com/directconnect/latest/UserGuide/maximum_resiliency.html",
)
def border_members_in_distinct_mdfs(ctx: SiteContext) -> Iterator[Hit]:
    seen: dict[str, str] = {}
    for name, device in sorted(ctx.site.devices.items(), key=lambda item: item[1].id):
        if device.role != "border":
            continue
        room = ctx.site.rooms[device.room]
        if room.kind != "mdf":
            yield Hit(f"border {name} is in {device.room}, a {room.kind}, not an MDF",
                      (*device.path, "room"))
        elif device.room in seen:
            yield Hit(f"border {name} shares MDF {device.room} with {seen[device.room]}",
                      (*device.path, "room"))
        else:
            seen[device.room] = name


@rule(
    "LOC-001", "error", "A device stands in the room of its rack",
    "Failure-domain rules read the device's room; a room that contradicts the rack means one "
    "of them is wrong, and the diversity the rules prove may not exist on the floor.",
    "meetme intent consistency (STANDARDS.md PHY-004 failure-domain tags)",
)
def device_room_matches_rack(ctx: SiteContext) -> Iterator[Hit]:
    for name, device in sorted(ctx.site.devices.items()):
        rack_room = ctx.site.racks[device.rack].room
        if rack_room != device.room:
            yield Hit(f"{name} is placed in {device.room}, but its rack {device.rack} stands "
                      f"in {rack_room}", (*device.path, "room"))
