"""Ginny-O's descriptor (see :mod:`gnome_env.core.spec` and docs/architecture.md)."""

from gnome_env.core.spec import GameSpec, Registration, ShippedPolicy

SPEC = GameSpec(
    name="ginny_o",
    title="Ginny-O",
    api="aec",
    min_players=2,
    max_players=4,
    default_players=2,
    config="gnome_env.ginny_o.config:GinnyConfig",
    envs={
        "aec": "gnome_env.ginny_o.ginny_o_v0:env",
        "gymnasium": "gnome_env.ginny_o.gym_env:GinnySingleSeatEnv",
    },
    registrations=(
        Registration("aec", "gnome_env/ginny_o_v0", "gnome_env.ginny_o.ginny_o_v0:env"),
        Registration(
            "gymnasium", "gnome_env/GinnyO-v0", "gnome_env.ginny_o.gym_env:GinnySingleSeatEnv"
        ),
    ),
    bots=("random", "greedy", "heuristic", "expert"),
    make_agent="agents.ginny_o.registry:make_ginny_agent",
    known_specs="agents.ginny_o.registry:known_ginny_specs",
    arena="agents.ginny_o.arena:GINNY_ARENA",
    trainers={"ginny_ppo": "training.ginny_o.ppo:main"},
    commands={
        "bench": "training.ginny_o.bench:main",
        "options": "agents.ginny_o.cli:OPTIONS",
        "config": "agents.ginny_o.cli:config",
        "demo": "agents.ginny_o.cli:demo",
        "eval": "agents.ginny_o.cli:eval_extras",
        "play": "agents.ginny_o.cli:play",
        "label": "agents.ginny_o.cli:LABEL",
        "replay": "agents.ginny_o.replay:replay",
    },
    shipped=(
        ShippedPolicy(
            "ginny_lookahead",
            "turns:agents/policies/ginny_lookahead/policy.pt",
            "above expert at 2 and 4 players: 0.537 [0.519, 0.556] at 2 players (2,000 "
            "games), 0.261 [0.2515, 0.2697] at 4 (8,000 games, pre-registered) against n-1 "
            "expert bots (agents/policies/ginny_lookahead/README.md)",
        ),
        ShippedPolicy(
            "ginny_turns",
            "turns:agents/policies/ginny_turns/policy.pt",
            "level with expert, not above it: 0.499 [0.482, 0.516] at 2 players, "
            "0.243 [0.225, 0.261] at 4 against n-1 expert bots, 2,000 games each "
            "(agents/policies/ginny_turns/README.md)",
        ),
        ShippedPolicy(
            "ginny_ppo",
            "ppo:agents/policies/ginny_ppo/policy.pt",
            "loses to greedy: 0.405 of 2-player and 0.165 of 4-player games (docs/ginny_o.md)",
        ),
    ),
    docs="docs/ginny_o.md",
    testing="gnome_env.ginny_o.testing:conformance_hooks",
)
