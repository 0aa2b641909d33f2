"""What every trainer shares: run configurations from YAML plus flags
(:mod:`training.core.config`)."""
