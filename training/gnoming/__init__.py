"""Gnoming A Round's trainers: PPO (:mod:`training.gnoming.ppo`), rollout distillation, expert
iteration, ensembles, and the SB3 and RLlib scripts."""
