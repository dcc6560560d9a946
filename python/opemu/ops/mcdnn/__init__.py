"""mcDNN routines, one module per forward/backward family (each module declares its entry points)."""
