"""Layer 1, foundation: problems and exit codes, secret references, numbering and provider
facts. Imports nothing of meetme; every other layer may import it."""
