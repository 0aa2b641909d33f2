"""Imitation pre-training for Nerts PPO: a network learns a teacher agent's decisions.

A teacher (any Nerts agent spec: ``greedy``, ``expert``, ``ppo:PATH``) plays every seat of
one-hand games (N31 ``max_hands=1``) on the Python engine; every decision with more than one
legal action becomes a sample (the seat's ``nerts_v0`` observation, its mask, the teacher's
action). The network is then fitted by cross-entropy over the legal actions (masked logits),
with a held-out twentieth of the samples for the accuracy figure. Nothing but the seat's own
view reaches a sample (the observation is the env's encoder of :class:`NertsView`).

Every draw is seeded: the hands' seeds come from ``derive_seed(GAME, seed, PRETRAIN, hand)``,
the teacher agents' from the hand seed and the seat, and the fit's order and split from a
``torch.Generator`` seeded by the caller, so the same settings give the same weights on CPU
with one torch thread.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

PRETRAIN_STREAM = 7  # the ``b`` of derive_seed(GAME, seed, b, hand): the pre-training hands


def teacher_samples(
    teacher: str,
    hands: int,
    num_players: Sequence[int],
    seed: int,
    max_steps_per_hand: int,
    max_samples: int,
    log: Callable[[str], None] = print,
    student: Callable[[np.ndarray, np.ndarray], int] | None = None,
    first_hand: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(obs float16 [N, OBS], masks bool [N, A], actions int64 [N])`` of ``teacher``
    playing every seat of ``hands`` one-hand games (hand ``h`` has
    ``num_players[h % len]`` seats); at most ``max_samples`` samples.

    With a ``student`` (``student(obs, mask) -> action``, DAgger), every other seat of
    each hand (seats ``k`` with ``k + h`` odd) plays the student's action while the
    teacher's is still the label: the samples then cover the positions the student reaches.
    Hands are numbered from ``first_hand`` (each round of DAgger takes new hands)."""
    from agents.nerts.registry import make_nerts_agent
    from gnome_env.core import rng as grng
    from gnome_env.nerts.config import NertsConfig
    from gnome_env.nerts.encoding import NertsEncoder
    from gnome_env.nerts.engine import NertsGame
    from gnome_env.nerts.information import NertsView

    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    start = time.perf_counter()
    for h in range(first_hand, first_hand + hands):
        n = num_players[h % len(num_players)]
        rules = NertsConfig(num_players=n, max_hands=1, max_steps_per_hand=max_steps_per_hand)
        encoder = NertsEncoder(rules)
        hand_seed = grng.derive_seed(grng.GAME, seed, PRETRAIN_STREAM, h)
        game = NertsGame(rules, hand_seed)
        bots = [
            make_nerts_agent(teacher, grng.derive_seed(grng.GAME, hand_seed, k), rules)
            for k in range(n)
        ]
        while not game.hand_over:
            joint = []
            for k, bot in enumerate(bots):
                view = NertsView.from_game(game, k)
                a = int(bot.decide(view))
                played = a
                if len(view.legal_actions) > 1:
                    x = encoder.encode(view)
                    mask = np.zeros(rules.n_actions, bool)
                    mask[list(view.legal_actions)] = True
                    if student is not None and (k + h) % 2 == 1:
                        played = int(student(x, mask))
                    if len(actions) < max_samples:
                        obs.append(x.astype(np.float16))
                        masks.append(mask)
                        actions.append(a)
                joint.append(played)
            game.step(joint)
        done = h + 1 - first_hand
        if done % 500 == 0 or done == hands:
            log(
                f"pre-training: {done}/{hands} teacher hands, {len(actions)} samples, "
                f"{time.perf_counter() - start:.0f} s"
            )
    return np.stack(obs), np.stack(masks), np.asarray(actions, np.int64)


def greedy_student(net: Any) -> Callable[[np.ndarray, np.ndarray], int]:
    """``net``'s most likely legal action for one observation and mask."""
    import torch

    def act(obs: np.ndarray, mask: np.ndarray) -> int:
        with torch.no_grad():
            logits, _ = net(torch.as_tensor(obs)[None], torch.as_tensor(mask)[None])
        return int(logits[0].argmax())

    return act


def fit(
    net: Any,
    data: tuple[np.ndarray, np.ndarray, np.ndarray],
    generator: Any,
    epochs: int,
    learning_rate: float,
    batch_size: int = 512,
    log: Callable[[str], None] = print,
) -> dict[str, float]:
    """Cross-entropy fit of ``net``'s policy head to the teacher's actions; the last
    epoch's training loss and the held-out accuracy (argmax == teacher's action)."""
    import torch

    obs, masks, actions = (torch.as_tensor(x) for x in data)
    n = len(actions)
    order = torch.randperm(n, generator=generator)
    held, train = order[: max(1, n // 20)], order[max(1, n // 20) :]
    opt = torch.optim.Adam(net.parameters(), lr=learning_rate)
    figures = {"loss": float("nan"), "accuracy": float("nan"), "samples": float(n)}
    for epoch in range(epochs):
        losses = []
        shuffled = train[torch.randperm(len(train), generator=generator)]
        for i in range(0, len(shuffled), batch_size):
            rows = shuffled[i : i + batch_size]
            logits, _ = net(obs[rows].float(), masks[rows])
            loss = torch.nn.functional.cross_entropy(logits, actions[rows])
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(float(loss.detach()))
        with torch.no_grad():
            right = 0
            for i in range(0, len(held), 4096):
                rows = held[i : i + 4096]
                logits, _ = net(obs[rows].float(), masks[rows])
                right += int((logits.argmax(1) == actions[rows]).sum())
        figures = {"loss": float(np.mean(losses)), "accuracy": right / len(held), "samples": n}
        log(
            f"pre-training epoch {epoch + 1}/{epochs}: loss {figures['loss']:.4f}, "
            f"held-out accuracy {figures['accuracy']:.4f}"
        )
    return figures
