"""What the games share: the counter-based generator (:mod:`~gnome_env.core.rng`), the numba
helper (:mod:`~gnome_env.core.jit`), drawing for image renders (:mod:`~gnome_env.core.draw`),
the config base and its checks (:mod:`~gnome_env.core.config`), the game descriptor
(:mod:`~gnome_env.core.spec`) and the machinery that keeps old module paths working
(:mod:`~gnome_env.core.moved`, :mod:`~gnome_env.core.lazy`). Nothing here knows any game."""
