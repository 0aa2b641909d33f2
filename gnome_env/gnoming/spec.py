"""Gnoming A Round's descriptor (see :mod:`gnome_env.core.spec` and docs/architecture.md)."""

from gnome_env.core.spec import GameSpec, Registration, ShippedPolicy

SPEC = GameSpec(
    name="gnoming",
    title="Gnoming A Round",
    api="aec",
    min_players=3,
    max_players=7,
    default_players=5,
    config="gnome_env.gnoming.config:RulesConfig",
    envs={
        "aec": "gnome_env.gnoming.gnoming_a_round_v1:env",
        "gymnasium": "gnome_env.gnoming.gym_env:GnomeSingleSeatEnv",
    },
    registrations=(
        Registration("aec", "gnome_env/gnoming_a_round_v1", "gnome_env.gnoming_a_round_v1:env"),
        Registration(
            "gymnasium", "gnome_env/GnomingARound-v1", "gnome_env.gym_env:GnomeSingleSeatEnv"
        ),
    ),
    bots=("random", "greedy", "expert", "rollout", "search"),
    make_agent="agents.gnoming.registry:make_agent",
    known_specs="agents.gnoming.registry:known_specs",
    arena="agents.gnoming.arena:GNOMING_ARENA",
    trainers={
        "ppo": "training.gnoming.ppo:main",
        "qdistill": "training.gnoming.qdistill:main",
        "search_distill": "training.gnoming.search_distill:main",
    },
    commands={
        "bench": "training.gnoming.bench:main",
        "options": "agents.gnoming.cli:OPTIONS",
        "config": "agents.gnoming.cli:config",
        "demo": "agents.gnoming.cli:demo",
        "play": "agents.gnoming.cli:play",
        "eval": "agents.gnoming.cli:eval_extras",
        "label": "agents.gnoming.cli:LABEL",
        "play_players": "agents.gnoming.cli:PLAY_PLAYERS",
        "replay": "agents.gnoming.replay:replay",
    },
    shipped=(
        ShippedPolicy(
            "distill2_3to7",
            "ppo:agents/policies/distill2_3to7/policy.pt",
            "beats 6 Expert bots at 7 seats: 0.154 [0.152, 0.157] of wins (1/7 = 0.143) over "
            "52,010 games (docs/gnoming.md)",
        ),
        ShippedPolicy(
            "distill_3to7",
            "ppo:agents/policies/distill_3to7/policy.pt",
            "the first recipe of distill2_3to7, a little weaker",
        ),
        ShippedPolicy(
            "ppo_hint_3to7",
            "ppo:agents/policies/ppo_hint_3to7/policy.pt",
            "close to Expert, a little below it",
        ),
        ShippedPolicy(
            "ppo_3to7", "ppo:agents/policies/ppo_3to7/policy.pt", "beats Greedy, not Expert"
        ),
    ),
    docs="docs/gnoming.md",
    testing="gnome_env.gnoming.testing:conformance_hooks",
)
