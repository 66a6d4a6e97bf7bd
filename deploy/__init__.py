"""Staged pushes of rendered configs to devices through NAPALM: plan, waves, confirm, rollback."""
