"""Ginny-O's trainer: PPO against a pool of bots (:mod:`training.ginny_o.ppo`)."""
