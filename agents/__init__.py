"""Players of gnome_env: heuristic bots and learned-policy loaders (built on gnome_env only)."""
