"""Design-standard rules (docs/standards.md): one module per family."""
