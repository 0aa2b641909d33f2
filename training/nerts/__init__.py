"""Nerts's trainer: self-play PPO (:mod:`training.nerts.ppo`)."""
