"""`meetme plan` and `meetme push`: staged pushes through NAPALM (registered by meetme.cli)."""

from __future__ import annotations

import typer

deploy_app = typer.Typer()


@deploy_app.command("plan")
def plan_command() -> None:
    """Show what each device of a stage would change (not implemented yet)."""
    typer.echo("meetme plan is not implemented yet", err=True)
    raise typer.Exit(2)
