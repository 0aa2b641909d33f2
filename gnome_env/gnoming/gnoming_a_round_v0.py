"""Removed in favour of :mod:`gnome_env.gnoming.gnoming_a_round_v1` (see its version history).

v1 deals and reshuffles with the project's own generator (:mod:`gnome_env.core.rng`) instead of
``numpy.random``, so the same seed deals other cards; rules, observations, actions and
rewards are unchanged. Importing this module raises ``ImportError`` naming v1.
"""

raise ImportError(
    "gnome_env.gnoming_a_round_v0 was replaced by gnome_env.gnoming_a_round_v1: v1 deals "
    "with the project's own generator instead of numpy.random, so a seed deals other cards "
    "than v0 did (rules, observations, actions and rewards are unchanged). "
    "Use `from gnome_env import gnoming_a_round_v1`."
)
