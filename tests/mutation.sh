#!/usr/bin/env bash
# Mutation test of validators/rules (docs/mutation.md). Not a CI step: long (docs/mutation.md has
# the measured durations). Runs one mutant at a time, at low priority, on a snapshot of this
# checkout.
#   tests/mutation.sh                 every rule module
#   tests/mutation.sh edge clouds     some modules
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${VIRTUAL_ENV:-}" ] && [ -f .venv/bin/activate ]; then . .venv/bin/activate; fi
exec nice -n 10 python tests/mutation.py "$@"
