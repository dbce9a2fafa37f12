"""What names and values mean in one module (stdlib ``ast`` only; never libcst)."""
