"""The rule catalogue: importing this module registers every rule of this meetme with the
engine, which itself knows none of them: the design-standard rules (validators/rules), the
config lint's CFG-* rules and the engine's own WAIVER-* rules.

Its own layer, below the pipeline: `meetme rules` and `meetme explain` read the catalogue
without loading what only a lint or a render needs (templates, Jinja2, the workers).
"""

from __future__ import annotations

from meetme.validators import config_lint  # noqa: F401  (registers CFG-*)
from meetme.validators.engine import RULES, Rule, all_rules
from meetme.validators.rules import catalogue  # noqa: F401  (registers the design rules)


def rule_catalogue() -> list[Rule]:
    """Every rule of this meetme: design-standard rules, config lint and waiver rules."""
    return all_rules()


def find_rule(rule_id: str) -> Rule | None:
    return RULES.get(rule_id.upper())
