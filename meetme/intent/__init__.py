"""Layer 2, the intent model: the YAML reader that keeps file:line:column, the loader that
merges files and resolves names, and the pydantic schema with its typed values."""
