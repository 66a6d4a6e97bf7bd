"""Lab device emulators for the deploy tests (network-free: everything on 127.0.0.1)."""

from .eos import EosEmulator, Faults, normalise

__all__ = ["EosEmulator", "Faults", "normalise"]
