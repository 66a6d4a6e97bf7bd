"""Design-standard rules (STANDARDS.md): PHY-* physical layout, ADDR-* addressing."""
