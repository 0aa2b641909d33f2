"""A learned Ginny-O policy that chooses whole turns among listed placements (spec ``turns:PATH``).

Over the 1,864 atomic ids (``ppo:PATH``) a policy has to discover what a placement scores;
here one decision is one whole turn, chosen among:

* ``0 .. K-1``: the ``K`` (:data:`MAX_CANDIDATES`) legal placements with the highest
  heuristic value (the expert's first step: score + tile bonus + leave value,
  :meth:`agents.ginny_o.bots.HeuristicGinnyAgent.value`), best first, ties in the move
  generator's order; the expert's own choice is always among them (it looks at the best
  :data:`~agents.ginny_o.expert.ExpertGinnyAgent.TOP_K` only);
* ``K`` (:data:`WEAK_RETURN`): return the rack's weak tiles (:func:`weak_slots`, what the
  greedy, heuristic and expert bots return), then redraw (G14);
* ``K + 1`` (:data:`RETURN_ALL`): return every tile of the rack, then redraw (G14);
* ``K + 2`` (:data:`PASS`): pass (G14: when nothing was drawn).

:func:`turn_mask` is exact: an action is legal when its atomic sequence starts with a legal
id (a candidate always is). Each candidate is described by :data:`CANDIDATE_FEATURES`,
including the expert's equity inputs: the heuristic value and its parts and, for the best
``top`` by that value, the next seat's expected best reply estimated as the expert does (the
compiled generator over ``samples`` racks drawn from the tiles this seat cannot see,
``view.unseen``, by this agent's own seeded generator), the equity (value minus
:data:`REPLY_WEIGHT` x reply; with ``reply_per_seat`` in ``search``, that many times the number of
other seats instead) and which candidate the expert's rule would pick. ``top`` and
``samples`` default to the expert's 6 and 6 (:data:`REPLY_TOP`, :data:`REPLY_SAMPLES`); a
checkpoint names its own (``search``). So the features depend on the seat's view (G17) and
the agent's seed only. The turn context is :data:`CONTEXT_FEATURES`.

With ``own`` > 0 in ``search`` (the ``ginny_lookahead`` policy) the rule in the features is
:class:`~agents.ginny_o.expert.LookaheadGinnyAgent`'s instead: each replied candidate also
gets ``own_next`` (:data:`LOOKAHEAD_FEATURES`: the seat's expected best score next turn after
it, over ``own`` refills of its rack drawn from the unseen tiles), its value drops the per-tile
bonus, and its equity adds ``own_weight`` x ``own_next``; :func:`candidate_features` names
the columns and a checkpoint's ``features`` must match its ``search``.

The network (:class:`TurnPolicyNetwork`) is permutation-equivariant over candidates: one
shared MLP maps ``[candidate features | context]`` to a hidden vector and a logit; a second
head gives the three other actions' logits from the context and the pooled candidates; the
value head reads the context and the pooled candidates. Illegal logits are
:data:`MASKED_LOGIT`.

A checkpoint is a ``torch.save`` dict (``weights_only`` loads) of format
:data:`CHECKPOINT_FORMAT`: ``version``, ``features`` (the candidate and context feature
names, checked on load), ``search`` (``{"top": ..., "samples": ...}`` of the reply
estimate), ``network`` (constructor arguments), ``state_dict`` and ``training``.
:func:`read_checkpoint` turns every unusable file into a ``ValueError``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.core.checkpoint_io import load_torch_file, write_checkpoint
from agents.ginny_o.bots import GreedyGinnyAgent, remaining_tiles, weak_slots
from agents.ginny_o.expert import ExpertGinnyAgent, LookaheadGinnyAgent
from gnome_env.ginny_o import actions as A
from gnome_env.ginny_o.board import BLUE, GREEN, RED, SQUARE, YELLOW
from gnome_env.ginny_o.cards import JOKER, penalty_value
from gnome_env.ginny_o.config import GinnyConfig
from gnome_env.ginny_o.information import GinnyView

CHECKPOINT_FORMAT = "gnome_env-ginny_o-turns-policy"
CHECKPOINT_VERSION = 1
MASKED_LOGIT = -1e9
#: Placements offered at most (the best by heuristic value).
MAX_CANDIDATES = 16
#: Placements whose next-seat reply is estimated (the expert's TOP_K) and racks sampled.
REPLY_TOP = ExpertGinnyAgent.TOP_K
REPLY_SAMPLES = ExpertGinnyAgent.SAMPLES
REPLY_WEIGHT = ExpertGinnyAgent.REPLY_WEIGHT
#: The other actions, after the ``K`` candidates.
WEAK_RETURN, RETURN_ALL, PASS = 0, 1, 2
NUM_OTHER = 3

CANDIDATE_FEATURES = (
    "score",
    "tiles",
    "jokers",
    "leave_value",
    "value",
    "value_gap",
    "rank",
    "replied",
    "reply",
    "equity",
    "equity_gap",
    "expert_choice",
    "red",
    "blue",
    "yellow",
    "green",
    "kept_tiles",
    "kept_jokers",
    "kept_penalty",
    "present",
)
#: The features that carry the expert's reply estimate and equity (the ablation drops them).
EQUITY_FEATURES = ("replied", "reply", "equity", "equity_gap", "expert_choice")
#: With an own-turn look-ahead (``own`` > 0 in the search settings: the rule of
#: :class:`~agents.ginny_o.expert.LookaheadGinnyAgent`) each candidate also has this feature
#: (the seat's expected best score next turn after it, 0 when it was not looked at), and
#: ``equity`` and ``expert_choice`` are that rule's.
LOOKAHEAD_FEATURES = ("own_next",)


def candidate_features(own: int = 0) -> tuple[str, ...]:
    """The candidate feature names for an own-turn look-ahead of ``own`` samples (0: none)."""
    return CANDIDATE_FEATURES + (LOOKAHEAD_FEATURES if own else ())


CONTEXT_FEATURES = (
    "own_score",
    "best_opponent",
    "margin_best",
    "margin_mean",
    "box",
    "late",
    "turn",
    "rack_size",
    "rack_jokers",
    "rack_penalty",
    "drew",
    "placements",
    "weak_tiles",
    "players_2",
    "players_3",
    "players_4",
    "pass_streak",
    "stall",
    "can_place",
)
_PREMIUMS = (RED, BLUE, YELLOW, GREEN)


# ---------------------------------------------------------------------- features
class TurnFeatures:
    """Builds a decision point's candidates, features and mask from a seat's view, with the
    expert's value and reply estimate (its own seeded generator draws the reply racks)."""

    def __init__(
        self,
        seed: int | None = None,
        config: GinnyConfig | None = None,
        k: int = MAX_CANDIDATES,
        top: int = REPLY_TOP,
        samples: int = REPLY_SAMPLES,
        own: int = 0,
        own_weight: float = LookaheadGinnyAgent.OWN_WEIGHT,
        reply_per_seat: float | None = None,
    ) -> None:
        for name, value in (("k", k), ("top", top), ("samples", samples)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name}={value!r} is not allowed: a positive integer")
        if isinstance(own, bool) or not isinstance(own, int) or own < 0:
            raise ValueError(f"own={own!r} is not allowed: an integer >= 0")
        if isinstance(own_weight, bool) or not isinstance(own_weight, (int, float)):
            raise ValueError(f"own_weight={own_weight!r} is not allowed: a number")
        if reply_per_seat is not None and (
            isinstance(reply_per_seat, bool)
            or not isinstance(reply_per_seat, (int, float))
            or not reply_per_seat >= 0
        ):
            raise ValueError(
                f"reply_per_seat={reply_per_seat!r} is not allowed: a number >= 0, or null"
            )
        self.k, self.top, self.samples, self.own = k, min(top, k), samples, own
        self.names = candidate_features(own)
        # the expert's value and reply code (with ``own``: the look-ahead rule's), with this
        # object's own generator; ``top``, ``samples``, ``own`` and ``own_weight`` replace the
        # bot's TOP_K, SAMPLES, OWN_SAMPLES and OWN_WEIGHT for this object only
        if own:
            self.expert = LookaheadGinnyAgent(seed, config)
            self.expert.OWN_SAMPLES, self.expert.OWN_WEIGHT = own, float(own_weight)
        else:
            self.expert = ExpertGinnyAgent(seed, config)
        self.expert.TOP_K, self.expert.SAMPLES = self.top, samples
        if reply_per_seat is not None:
            self.expert.REPLY_PER_SEAT = float(reply_per_seat)

    def build(self, view: GinnyView) -> dict[str, Any]:
        """``{"order", "candidates" [K, F], "context" [C], "mask" [K + 3], "expert"}`` of the
        acting seat's ``view`` at the start of a turn: ``order`` indexes
        ``view.placements``; ``expert`` is the action the expert's rule picks from these
        features (the highest equity among the replied candidates; without a placement, the
        weak-tile return after a draw, else a pass)."""
        k, ex = self.k, self.expert
        values = [ex.value(view, p) for p in view.placements]
        order = sorted(range(len(values)), key=lambda i: (-values[i], i))[:k]
        rows = np.zeros((k, len(self.names)), np.float32)
        top = order[: self.top]
        replies: dict[int, float] = {}
        owns: dict[int, float] = {}
        if len(top) > 1:
            racks = ex.sample_racks(view)
            for i in sorted(top):  # the bot's order: its generator draws the same racks
                replies[i] = ex.reply(view, view.placements[i], racks)
                if self.own:
                    owns[i] = ex.own_next(view, view.placements[i])
        elif top:
            replies = {top[0]: 0.0}
        weight = ex.OWN_WEIGHT if self.own else 0.0
        rw = ex.reply_weight(view)
        equities = {i: values[i] - rw * r + weight * owns.get(i, 0.0) for i, r in replies.items()}
        worst_reply = max(replies.values(), default=0.0)
        best_equity = max(equities.values(), default=0.0)
        # the expert's pick: highest equity, ties to the first in the generator's order
        pick = min(equities, key=lambda i: (-equities[i], i)) if equities else None
        best_value = values[order[0]] if order else 0.0
        for row, i in enumerate(order):
            p = view.placements[i]
            left = remaining_tiles(view, p)
            replied = i in replies
            equity = equities[i] if replied else values[i] - rw * worst_reply
            squares = [SQUARE[c] for c, _, _ in p.tiles]
            real = [t for t in left if t != JOKER]
            extra = (owns.get(i, 0.0) / 100.0,) if self.own else ()
            rows[row] = (
                p.score / 100.0,
                len(p.tiles) / 8.0,
                sum(t == JOKER for _, t, _ in p.tiles),
                ex.leave_value(view, left) / 20.0,
                values[i] / 100.0,
                (values[i] - best_value) / 100.0,
                row / k,
                float(replied),
                replies.get(i, 0.0) / 100.0,
                equity / 100.0,
                (equity - best_equity) / 100.0,
                float(i == pick),
                *(squares.count(kind) for kind in _PREMIUMS),
                len(real) / 8.0,
                len(left) - len(real),
                sum(penalty_value(t) for t in real) / 100.0,
                1.0,
                *extra,
            )
        context = self.context(view, len(order))
        mask = turn_mask(view, order, k)
        if pick is not None:
            expert = order.index(pick)
        elif mask[k + WEAK_RETURN] and view.drew:
            expert = k + WEAK_RETURN
        elif mask[k + PASS]:
            expert = k + PASS
        else:
            expert = int(np.flatnonzero(mask)[0])
        return {
            "order": order,
            "candidates": rows,
            "context": context,
            "mask": mask,
            "expert": expert,
        }

    def context(self, view: GinnyView, listed: int) -> np.ndarray:
        """The :data:`CONTEXT_FEATURES` of ``view``."""
        seat, n = view.seat, view.config.num_players
        own = view.scores[seat]
        others = [s for i, s in enumerate(view.scores) if i != seat]
        rack = list(view.rack)
        real = [t for t in rack if t != JOKER]
        cap = view.config.turn_cap or 1
        weak = weak_slots(view.slots) if any(t >= 0 for t in view.slots) else []
        return np.array(
            (
                own / 1000.0,
                max(others) / 1000.0,
                (own - max(others)) / 100.0,
                (own - float(np.mean(others))) / 100.0,
                view.box_size / 108.0,
                max(0.0, 1.0 - view.box_size / 12.0),
                view.turn / cap,
                len(rack) / 8.0,
                len(rack) - len(real),
                sum(penalty_value(t) for t in real) / 100.0,
                float(view.drew),
                len(view.placements) / 100.0,
                len(weak) / 8.0,
                float(n == 2),
                float(n == 3),
                float(n == 4),
                view.pass_streak / n,
                min(view.stall, 4) / 4.0,
                float(listed > 0),
            ),
            dtype=np.float32,
        )


def turn_actions(view: GinnyView, order: list[int], k: int, action: int) -> tuple[int, ...] | None:
    """The atomic ids whole-turn ``action`` plays from the acting seat's ``view``, or None
    when it is not legal now."""
    if 0 <= action < k:
        return tuple(view.placement_actions[order[action]]) if action < len(order) else None
    other = action - k
    filled = [s for s, t in enumerate(view.slots) if t >= 0]
    if other in (WEAK_RETURN, RETURN_ALL) and not filled:
        return None  # an empty rack returns nothing (G14)
    if other == WEAK_RETURN:
        seq: tuple[int, ...] = (
            *(A.return_slot(s) for s in weak_slots(view.slots)),
            A.CONFIRM_RETURN,
        )
    elif other == RETURN_ALL:
        seq = (*(A.return_slot(s) for s in filled), A.CONFIRM_RETURN)
    elif other == PASS:
        seq = (A.PASS,)
    else:
        return None
    return seq if seq[0] in view.legal_actions else None


def turn_mask(view: GinnyView, order: list[int], k: int) -> np.ndarray:
    """Bool mask over the ``k + 3`` whole-turn actions: exactly those :func:`turn_actions`
    gives ids for."""
    out = np.zeros(k + NUM_OTHER, dtype=bool)
    out[: len(order)] = True
    for other in range(NUM_OTHER):
        out[k + other] = turn_actions(view, order, k, k + other) is not None
    return out


# ---------------------------------------------------------------------- network
class TurnPolicyNetwork(nn.Module):
    """Candidate-scoring policy and value (module docstring). ``drop`` lists candidate
    feature names zeroed on input (the ablation without the equity features)."""

    def __init__(
        self,
        k: int = MAX_CANDIDATES,
        hidden: int = 64,
        drop: tuple[str, ...] | list[str] = (),
        own: bool = False,
    ) -> None:
        super().__init__()
        names = candidate_features(int(bool(own)))
        unknown = [d for d in drop if d not in names]
        if unknown:
            raise ValueError(f"unknown candidate features to drop: {unknown}")
        self.k, self.hidden, self.drop, self.own = int(k), int(hidden), tuple(drop), bool(own)
        f, c = len(names), len(CONTEXT_FEATURES)
        keep = torch.ones(f)
        for name in self.drop:
            keep[names.index(name)] = 0.0
        self.register_buffer("keep", keep, persistent=False)
        self.cand = nn.Sequential(
            nn.Linear(f + c, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU()
        )
        self.cand_logit = nn.Linear(hidden, 1)
        self.other = nn.Sequential(
            nn.Linear(c + 2 * hidden, hidden), nn.ReLU(), nn.Linear(hidden, NUM_OTHER)
        )
        self.value = nn.Sequential(
            nn.Linear(c + 2 * hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1)
        )

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"k": self.k, "hidden": self.hidden, "drop": list(self.drop)}
        if self.own:  # only then, so that version-1 checkpoints read as before
            out["own"] = True
        return out

    def forward(
        self, cands: torch.Tensor, ctx: torch.Tensor, mask: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """``cands`` [B, K, F], ``ctx`` [B, C], ``mask`` [B, K + 3] bool -> masked logits
        [B, K + 3] and values [B]."""
        b, k, _ = cands.shape
        present = mask[:, :k].float()
        x = torch.cat([cands * self.keep, ctx[:, None, :].expand(b, k, ctx.shape[1])], -1)
        h = self.cand(x)
        cand_logits = self.cand_logit(h).squeeze(-1)
        count = present.sum(1, keepdim=True).clamp(min=1.0)
        mean = (h * present[..., None]).sum(1) / count
        any_present = present.sum(1, keepdim=True) > 0
        big = (h - 1e4 * (1.0 - present[..., None])).max(1).values * any_present
        pooled = torch.cat([ctx, mean, big], -1)
        logits = torch.cat([cand_logits, self.other(pooled)], -1)
        logits = torch.where(mask, logits, torch.full_like(logits, MASKED_LOGIT))
        return logits, self.value(pooled).squeeze(-1)


# ---------------------------------------------------------------------- checkpoints
def save_policy(
    net: TurnPolicyNetwork,
    path: str | Path,
    training: dict[str, Any],
    search: dict[str, int] | None = None,
) -> Path:
    """Write ``net`` as a checkpoint (atomically); ``search`` is the features' reply search,
    ``{"top": ..., "samples": ...}`` (default: the expert's, 6 and 6), with ``"own"`` and
    ``"own_weight"`` for an own-turn look-ahead (the network must have ``own``)."""
    search = dict(search or {"top": REPLY_TOP, "samples": REPLY_SAMPLES})
    if bool(search.get("own", 0)) != net.own:
        raise ValueError("the network's own-turn feature and the search settings disagree")
    payload = {
        "format": CHECKPOINT_FORMAT,
        "version": CHECKPOINT_VERSION,
        "search": search,
        "features": {
            "candidates": list(candidate_features(search.get("own", 0))),
            "context": list(CONTEXT_FEATURES),
        },
        "network": net.describe(),
        "state_dict": {k: v.detach().clone() for k, v in net.state_dict().items()},
        "training": training,
    }
    return write_checkpoint(payload, path)


def read_checkpoint(path: str | Path) -> tuple[TurnPolicyNetwork, dict[str, Any]]:
    """Load a checkpoint: ``(network in eval mode, the dict)``; any problem is a ``ValueError``
    that says what is wrong with the file."""
    data, where = load_torch_file(path)
    if not isinstance(data, dict) or data.get("format") != CHECKPOINT_FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise ValueError(
            f"{where} is not a Ginny-O whole-turn policy checkpoint (expected "
            f"format={CHECKPOINT_FORMAT!r}, as written by training/ginny_o/turns.py; found "
            f"{found!r})"
        )
    if data.get("version") != CHECKPOINT_VERSION:
        raise ValueError(
            f"{where} has version {data.get('version')!r}; this reads {CHECKPOINT_VERSION}"
        )
    missing = [k for k in ("features", "search", "network", "state_dict") if k not in data]
    if missing:
        raise ValueError(f"{where} lacks {', '.join(missing)}: the file is incomplete")
    own = data["search"].get("own", 0) if isinstance(data["search"], dict) else 0
    want = {"candidates": list(candidate_features(own)), "context": list(CONTEXT_FEATURES)}
    if data["features"] != want:
        raise ValueError(f"{where} was trained on other features than this code builds")
    try:
        net = TurnPolicyNetwork(**data["network"])
        net.load_state_dict(data["state_dict"])
        TurnFeatures(0, None, net.k, **data["search"])  # checks the search settings
        if net.own != bool(own):
            raise ValueError("the network's own-turn feature and the search settings disagree")
    except (TypeError, ValueError, RuntimeError, KeyError) as err:
        raise ValueError(f"{where}: the weights do not fit the network: {str(err)[:200]}") from None
    net.eval()
    return net, data


_CACHE: dict[tuple[str, int, int], tuple[TurnPolicyNetwork, dict[str, Any]]] = {}


def _cached_checkpoint(path: str | Path) -> tuple[TurnPolicyNetwork, dict[str, Any]]:
    """:func:`read_checkpoint`, kept per (path, size, mtime) for the arena, which builds a
    fresh agent for every game (the network is only read, never trained, by agents)."""
    p = Path(path)
    try:
        st = p.stat()
        key = (str(p.resolve()), st.st_size, st.st_mtime_ns)
    except OSError:
        return read_checkpoint(path)  # missing or unreadable: its own clear error
    if key not in _CACHE:
        _CACHE.clear()
        _CACHE[key] = read_checkpoint(path)
    return _CACHE[key]


# ---------------------------------------------------------------------- the agent
class TurnPolicyAgent:
    """Plays a whole-turn checkpoint as a Ginny-O bot (``decide(view) -> atomic id``): at the
    start of a turn it builds the features from the seat's view, takes the most likely legal
    action (``sample=True``: samples one from its own seeded torch generator) and keeps the
    action's atomic ids as the turn's plan."""

    spec = "turns"

    def __init__(
        self,
        source: str | Path | TurnPolicyNetwork,
        seed: int | None = 0,
        config: GinnyConfig | None = None,
        sample: bool = False,
    ) -> None:
        if isinstance(source, TurnPolicyNetwork):
            self.net, search = source, {}
        else:
            self.net, data = _cached_checkpoint(source)
            search = data["search"]
        self.seed = seed
        self.features = TurnFeatures(seed, config, self.net.k, **search)
        self.sample = sample
        self.gen = torch.Generator().manual_seed(0 if seed is None else int(seed))
        self.fallback = GreedyGinnyAgent(seed, config)
        self.plan: list[int] = []
        self.plan_for: tuple[int, int] | None = None

    def choose(self, feats: dict[str, Any]) -> int:
        """The whole-turn action for the built features ``feats``."""
        with torch.no_grad():
            logits, _ = self.net(
                torch.as_tensor(feats["candidates"])[None],
                torch.as_tensor(feats["context"])[None],
                torch.as_tensor(feats["mask"])[None],
            )
        if self.sample:
            probs = torch.softmax(logits[0], -1)
            return int(torch.multinomial(probs, 1, generator=self.gen))
        return int(torch.argmax(logits[0]))

    def decide(self, view: GinnyView) -> int:
        """The next atomic id of this turn's plan, or the first id of a new whole turn."""
        legal = view.legal_actions
        if not legal:
            raise ValueError(f"seat {view.seat} is not acting: there is no legal action")
        if self.plan and self.plan_for == (view.turn, view.seat) and self.plan[0] in legal:
            return self.plan.pop(0)
        if view.phase != "choose":  # after a commit with max_placements > 1, or a lost plan
            return self.fallback.decide(view)
        feats = self.features.build(view)
        action = self.choose(feats)
        seq = turn_actions(view, feats["order"], self.net.k, action)
        if seq is None:  # cannot happen: the mask is exact
            raise ValueError(f"the policy chose whole-turn action {action}, which is not legal")
        self.plan, self.plan_for = list(seq[1:]), (view.turn, view.seat)
        return seq[0]

    def __repr__(self) -> str:
        return f"TurnPolicyAgent(seed={self.seed!r}, sample={self.sample})"


__all__ = [
    "CANDIDATE_FEATURES",
    "CONTEXT_FEATURES",
    "EQUITY_FEATURES",
    "LOOKAHEAD_FEATURES",
    "MAX_CANDIDATES",
    "TurnFeatures",
    "TurnPolicyAgent",
    "TurnPolicyNetwork",
    "candidate_features",
    "read_checkpoint",
    "save_policy",
    "turn_actions",
    "turn_mask",
]
