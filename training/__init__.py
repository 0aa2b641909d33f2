"""Training scripts and the ``gnome`` command line (built on agents and gnome_env)."""
