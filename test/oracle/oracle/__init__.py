"""fuser's PyTorch oracle (docs/oracle.md)."""
