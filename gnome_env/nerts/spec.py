"""Nerts's descriptor (see :mod:`gnome_env.core.spec` and docs/architecture.md)."""

from gnome_env.core.spec import GameSpec, Registration, ShippedPolicy

SPEC = GameSpec(
    name="nerts",
    title="Nerts",
    api="parallel",
    min_players=2,
    max_players=6,
    default_players=4,
    config="gnome_env.nerts.config:NertsConfig",
    envs={
        "parallel": "gnome_env.nerts.nerts_v0:parallel_env",
        "aec": "gnome_env.nerts.nerts_v0:env",
        "gymnasium": "gnome_env.nerts.gym_env:NertsSingleSeatEnv",
    },
    registrations=(
        Registration("parallel", "gnome_env/nerts_v0", "gnome_env.nerts.nerts_v0:parallel_env"),
        Registration(
            "gymnasium", "gnome_env/Nerts-v0", "gnome_env.nerts.gym_env:NertsSingleSeatEnv"
        ),
    ),
    bots=("random", "greedy", "expert", "search"),
    make_agent="agents.nerts.registry:make_nerts_agent",
    known_specs="agents.nerts.registry:known_nerts_specs",
    arena="agents.nerts.arena:NERTS_ARENA",
    trainers={
        "nerts_ppo": "training.nerts.ppo:main",
        "nerts_turn_gate": "training.nerts.turn_gate:main",
    },
    commands={
        "bench": "training.nerts.bench:main",
        "options": "agents.nerts.cli:OPTIONS",
        "config": "agents.nerts.cli:config",
        "demo": "agents.nerts.cli:demo",
        "eval": "agents.nerts.cli:eval_extras",
        "play": "agents.nerts.cli:play",
        "label": "agents.nerts.cli:LABEL",
        "play_players": "agents.nerts.cli:PLAY_PLAYERS",
        "replay": "agents.nerts.replay:replay",
    },
    shipped=(
        ShippedPolicy(
            "nerts_turn_gate",
            "ppo:agents/policies/nerts_turn_gate/policy.pt",
            "beats expert at 2, 4 and 6 players: 0.526 [0.509, 0.543] at 2 players, "
            "0.272 [0.259, 0.284] at 4 (2,000 games each), 0.1725 [0.1695, 0.1756] at 6 "
            "(23,004 games, three runs pooled) against n-1 expert bots "
            "(agents/policies/nerts_turn_gate/README.md)",
        ),
        ShippedPolicy(
            "nerts_search_distill",
            "ppo:agents/policies/nerts_search_distill/policy.pt",
            "does not beat expert: 0.472 [0.456, 0.488] at 2 players, 0.224 [0.211, 0.237] "
            "at 4, 0.150 [0.140, 0.159] at 6 against n-1 expert bots "
            "(agents/policies/nerts_search_distill/README.md)",
        ),
        ShippedPolicy(
            "nerts_expert_ppo",
            "ppo:agents/policies/nerts_expert_ppo/policy.pt",
            "does not beat expert: 0.338 [0.314, 0.361] at 2 players, 0.213 [0.193, 0.233] at 4, "
            "0.155 [0.139, 0.171] at 6 against n-1 expert bots "
            "(agents/policies/nerts_expert_ppo/README.md)",
        ),
        ShippedPolicy(
            "nerts_ppo",
            "ppo:agents/policies/nerts_ppo/policy.pt",
            "loses to greedy: 0.293 of 2-player and 0.168 of 4-player one-hand games "
            "(docs/nerts.md)",
        ),
    ),
    docs="docs/nerts.md",
    testing="gnome_env.nerts.testing:conformance_hooks",
)
