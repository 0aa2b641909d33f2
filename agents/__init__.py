"""Players of gnome_env: heuristic bots and learned-policy loaders (built on gnome_env only)."""

from agents.expert import ExpertAgent
from agents.greedy import GreedyAgent
from agents.random_agent import RandomAgent
from agents.registry import known_specs, make_agent

__all__ = ["ExpertAgent", "GreedyAgent", "RandomAgent", "known_specs", "make_agent"]
