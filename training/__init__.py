"""Training scripts and the ``gnome`` command line (built on agents and gnome_env).

``training.core`` is what every trainer shares (run configs); ``training.gnoming``,
``training.nerts`` and ``training.ginny_o`` hold each game's trainers; ``training.app`` the
``gnome`` command. Moved modules keep their old paths (``training.ppo`` is
``training.gnoming.ppo``, ``python -m training.nerts_ppo`` still runs): :data:`MOVED`.
"""

from gnome_env.core import moved as _moved

MOVED: dict[str, str] = {
    "training.chunks": "training.gnoming.chunks",
    "training.ensemble": "training.gnoming.ensemble",
    "training.qdistill": "training.gnoming.qdistill",
    "training.rllib_ppo": "training.gnoming.rllib_ppo",
    "training.sb3_maskable_ppo": "training.gnoming.sb3_maskable_ppo",
    "training.search_distill": "training.gnoming.search_distill",
    "training.ppo": "training.gnoming.ppo",
    "training.config": "training.core.config",
    "training.nerts_ppo": "training.nerts.ppo",
    "training.ginny_ppo": "training.ginny_o.ppo",
    "training.app.benchmark": "training.gnoming.bench",
}
_moved.install(MOVED)
