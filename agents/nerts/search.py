"""A Nerts search bot (spec ``search``): the expert's candidate moves, each tried in sampled
playouts of the rest of the hand on the compiled kernels.

At a decision with more than one *candidate* (below), :class:`SearchNertsAgent`

1. samples ``samples`` completions of what the seat cannot see (N35): every seat's face-down
   Nerts cards, stock and waste below the top, shuffled uniformly from the cards of that
   seat's deck that the view does not show (its Nerts and waste tops, work piles and its
   cards on the foundations; N34). By default it uses the current view only, never memory
   of cards turned earlier, so it knows less than a seat may. With ``memory=1`` it
   remembers every waste top it has seen this hand (:mod:`agents.nerts.memory`, N35): those
   cards keep their places in every sample and only the rest are shuffled. It never reads
   a hidden card;
2. for each sample and each candidate, plays the hand on from a copy: the seat plays the
   candidate, then every seat (itself included) plays the compiled expert
   (:mod:`agents.nerts._bot_kernels`) until the hand ends or ``horizon`` steps have passed;
   every step's priority order (N20) comes from the sample's own stream, not the game's;
3. scores each playout by the seat's win share of the hand (1/k when k seats share the best
   hand score, N30) plus ``score_weight`` times its hand score minus the best other seat's,
   and plays the candidate with the best mean over the samples (common samples for every
   candidate), the expert's own move unless another one is better by more than ``margin``
   -- and, with ``z > 0``, by more than ``z`` standard errors of its paired per-sample
   difference from the expert's move (:func:`clear_gain`). Without that test the search
   follows the noise of its 16 samples at 4 and 6 players, where the other seats' hidden
   cards matter more; ``search:z=2:margin=0.1`` is the setting measured in
   ``docs/nerts.md``.

Candidates: the expert's move, greedy's move, every foundation play, the Nerts and waste
tops' moves onto work piles (N10, N12), turning / recycling / shifting the stock, waiting,
and calling (N22). Moves between work piles enter only as the expert's or greedy's choice.
With ``candidates=KINDS`` (e.g. ``search:memory=1:candidates=turn``) the only candidates
besides the expert's move are actions of those kinds (:func:`allowed_candidates`): the
search then asks only whether such a move beats the expert's, at a fraction of the cost.

Random draws come from the streams ``(SEARCH, key, sample, ...)`` of :mod:`gnome_env.core.rng`,
``key`` = :func:`sample_key` of the bot's seed, the hand and the step: the same seed and view
give the same decision. Only ``jokers=0`` is supported (a joker on a foundation does not say
whose deck it came from).
"""

from __future__ import annotations

import numpy as np

from agents.nerts import _bot_kernels as BK
from agents.nerts.bots import NertsBot
from agents.nerts.memory import WasteMemory
from gnome_env.core import rng as grng
from gnome_env.core.jit import maybe_njit
from gnome_env.nerts import _kernels as K
from gnome_env.nerts.actions import action_table, parse_kinds
from gnome_env.nerts.config import NertsConfig
from gnome_env.nerts.information import NertsView
from gnome_env.nerts.vector import KernelParams

SEARCH = grng.NERTS_SEARCH  # the rng domain of the search's samples


@maybe_njit
def hidden_places(g, j, places):
    """The row cells of seat ``j``'s hidden places (N35) -- its Nerts pile under the top,
    its stock, its waste under the top, in that order -- into ``places``; returns how many."""
    n = 0
    for i in range(max(g[K.S_NLEN + j] - 1, 0)):
        places[n] = K.NERTS + j * K.MAX_DECK + i
        n += 1
    for i in range(g[K.S_SLEN + j]):
        places[n] = K.STOCK + j * K.MAX_DECK + i
        n += 1
    for i in range(max(g[K.S_WLEN + j] - 1, 0)):
        places[n] = K.WASTE + j * K.MAX_DECK + i
        n += 1
    return n


@maybe_njit
def free_places(g, j, places, known):
    """Seat ``j``'s :func:`hidden_places` whose card is not remembered (``known[cell]`` 0),
    in that order, into ``places``; returns how many."""
    n = hidden_places(g, j, places)
    m = 0
    for i in range(n):
        if known[places[i]] == 0:
            places[m] = places[i]
            m += 1
    return m


@maybe_njit
def _fill_hidden(det, base, p, hid, hid_n, known, key, sample, places):
    """Copy ``base`` into ``det`` and deal every seat's unknown hidden cards
    (``hid[j, :hid_n[j]]``, shuffled with the stream (SEARCH, key, sample, j)) into its
    :func:`free_places` (remembered cards stay where ``base`` has them)."""
    for i in range(base.shape[0]):
        det[i] = base[i]
    for j in range(p):
        row = hid[j]
        grng.shuffle(row, hid_n[j], SEARCH, key, sample, j)
        for i in range(free_places(det, j, places, known)):
            det[places[i]] = row[i]


@maybe_njit
def _playout(g, prm, me, first, horizon, key, sample, ids, sc, bs, acts):
    """Play ``g`` on: ``me`` plays ``first`` now, then every seat the compiled expert, until
    the hand ends or ``horizon`` steps; returns (win share of ``me``, its score - best other)."""
    p = g[K.C_P]
    pi_seed = grng.draw_word(SEARCH, key, sample, 1 << 20, 0)
    steps = 0
    while g[K.C_HAND_OVER] == 0 and steps < horizon:
        K.fill_need(g, sc)
        for s in range(p):
            if steps == 0 and s == me:
                acts[s] = first
                continue
            n = K.seat_legal(g, prm, s, ids, sc)
            acts[s] = BK.bot_decide(g, prm, s, ids, n, sc, bs, BK.KIND_EXPERT)
        K.play_step(g, prm, acts, pi_seed)
        steps += 1
    mine = K.hand_score(g, me)
    other = -(1 << 30)  # the best other seat's score, and how many other seats have it
    ties = 0
    for s in range(p):
        if s != me:
            x = K.hand_score(g, s)
            if x > other:
                other, ties = x, 1
            elif x == other:
                ties += 1
    if mine > other:
        return 1.0, mine - other
    share = 1.0 / (ties + 1) if mine == other else 0.0
    return share, mine - other


@maybe_njit
def add_sample(det, prm, me, cands, nc, horizon, key, sample, score_weight, g, ids, sc, bs, acts,
               out, now, sq):  # fmt: skip
    """Play every candidate on one completed deal ``det`` (:func:`_playout`, priority
    stream ``sample``): add its value to ``out[c]`` and its squared difference from the
    first candidate's to ``sq[c]`` (``now``: this sample's values)."""
    for c in range(nc):
        for k in range(det.shape[0]):
            g[k] = det[k]
        share, diff = _playout(g, prm, me, cands[c], horizon, key, sample, ids, sc, bs, acts)
        now[c] = share + score_weight * diff
        out[c] += now[c]
    for c in range(nc):
        d = now[c] - now[0]
        sq[c] += d * d


@maybe_njit
def search_values(base, prm, me, cands, nc, samples, horizon, key, hid, hid_n, known,
                  score_weight, det, g, ids, sc, bs, acts, hid_work, places, out, now,
                  sq):  # fmt: skip
    """``out[c]``: the mean playout value of candidate ``cands[c]`` over ``samples``
    completions (the same completions and priority streams for every candidate);
    ``sq[c]``: the mean over the samples of the squared difference between its value and
    the first candidate's on the same sample (``now``: one sample's values)."""
    p = base[K.C_P]
    for c in range(nc):
        out[c] = 0.0
        sq[c] = 0.0
    for i in range(samples):
        for j in range(p):
            for k in range(hid_n[j]):
                hid_work[j, k] = hid[j, k]
        _fill_hidden(det, base, p, hid_work, hid_n, known, key, i, places)
        add_sample(det, prm, me, cands, nc, horizon, key, i, score_weight, g, ids, sc, bs, acts,
                   out, now, sq)  # fmt: skip
    for c in range(nc):
        out[c] /= samples
        sq[c] /= samples


@maybe_njit
def clear_gain(values, sq, best, samples, margin, z):
    """Whether candidate ``best`` beats the first one (the expert's move) clearly: its mean
    gain is more than ``margin`` and, with ``z > 0``, more than ``z`` standard errors of
    the paired per-sample difference (the same completions for both)."""
    if not values[best] > values[0] + margin:  # (the comparison of the search without z)
        return False
    gain = values[best] - values[0]
    if z <= 0 or samples < 2:
        return True
    var = (sq[best] - gain * gain) * samples / (samples - 1)  # the sample variance
    if var <= 0:
        return True
    return gain > z * np.sqrt(var / samples)


@maybe_njit
def known_from_seen(g, seen, b, known, places):
    """``known[cell]`` = 1 for every hidden place of the full row ``g`` holding a card that
    has been a waste top (``seen[b, j, card]``,
    :func:`agents.nerts.memory.remember_waste_tops`), 0 elsewhere: what memory of waste tops
    tells every seat (N34, N35). With fewer than ``b + 1`` rows in ``seen``: nothing known."""
    for i in range(known.shape[0]):
        known[i] = 0
    if seen.shape[0] <= b:
        return
    for j in range(g[K.C_P]):
        for i in range(hidden_places(g, j, places)):
            if seen[b, j, g[places[i]]]:
                known[places[i]] = 1


@maybe_njit
def hidden_from_row(g, hid, hid_n, known, places):
    """Each seat's hidden cards that are not remembered (its :func:`free_places`) of a full
    game row, sorted (so that nothing of their order is kept), into ``hid`` / ``hid_n``."""
    for j in range(g[K.C_P]):
        n = free_places(g, j, places, known)
        for i in range(n):
            hid[j, i] = g[places[i]]
        for i in range(1, n):  # insertion sort
            x = hid[j, i]
            k = i - 1
            while k >= 0 and hid[j, k] > x:
                hid[j, k + 1] = hid[j, k]
                k -= 1
            hid[j, k + 1] = x
        hid_n[j] = n


@maybe_njit
def candidates(base, prm, me, ids, n, sc, bs, cands, allow):
    """The search's candidates for seat ``me`` of ``base`` (legal ids ``ids[:n]``) into
    ``cands``, the expert's move first (module docstring); returns how many. With a
    non-empty ``allow`` (one flag per action id) the other candidates are only actions it
    flags (:func:`allowed_candidates`)."""
    K.fill_need(base, sc)
    expert = BK.bot_decide(base, prm, me, ids, n, sc, bs, BK.KIND_EXPERT)
    greedy = BK.bot_decide(base, prm, me, ids, n, sc, bs, BK.KIND_GREEDY)
    cands[0] = expert
    nc = 1
    b_move, b_slide = prm[K.P_B_MOVE], prm[K.P_B_SLIDE]
    for i in range(-1, n):
        a = greedy if i < 0 else ids[i]
        if i >= 0 and b_move <= a < b_slide:
            continue  # moves between work piles: only as the expert's or greedy's choice
        if allow.shape[0] > 0 and not allow[a]:
            continue
        seen = False
        for c in range(nc):
            if cands[c] == a:
                seen = True
        if not seen:
            cands[nc] = a
            nc += 1
    return nc


@maybe_njit
def search_core(base, prm, me, ids, n, hid, hid_n, known, key, samples, horizon, score_weight,
                margin, z, allow, buf_det, buf_g, buf_ids, sc, bs, acts, hid_work, places,
                cands, values, now, sq):  # fmt: skip
    """The search's decision for seat ``me`` of ``base`` (its hidden places are overwritten
    by each sample) with legal ids ``ids[:n]`` (ascending), hidden cards ``hid`` /
    ``hid_n`` and the candidates :func:`candidates` allows; returns ``(action, 1 if it is
    not the expert's move else 0, nc)``: with
    ``nc > 1`` the candidates are ``cands[:nc]`` (the expert's move first) and their mean
    playout values ``values[:nc]``."""
    if n == 1:
        return ids[0], 0, 1
    nc = candidates(base, prm, me, ids, n, sc, bs, cands, allow)
    expert = cands[0]
    if nc == 1:
        return expert, 0, 1
    search_values(base, prm, me, cands, nc, samples, horizon, key, hid, hid_n, known,
                  score_weight, buf_det, buf_g, buf_ids, sc, bs, acts, hid_work, places, values,
                  now, sq)  # fmt: skip
    best = 0
    for c in range(1, nc):
        if values[c] > values[best]:
            best = c
    if best != 0 and clear_gain(values, sq, best, samples, margin, z):
        return cands[best], 1, nc
    return expert, 0, nc


@maybe_njit
def search_batch(st, prm, ids, counts, who, keys, samples, horizon, score_weight, margin, z,
                 allow, seen, hid, hid_n, known, buf_det, buf_g, buf_ids, sc, bs, acts, hid_work,
                 places, cands, values, now, sq, out, deviated, qv):  # fmt: skip
    """``out[b, s]`` = the search's action for every seat with ``who[b, s]`` set, on the
    batched engine's rows (``ids`` / ``counts``: its legal ids), with the sample stream key
    ``keys[b, s]`` and the candidates ``allow`` allows (:func:`candidates`; empty: all);
    ``deviated[b, s]`` = 1 where it is not the expert's move. With
    ``seen.shape[0] == B`` (:func:`agents.nerts.memory.remember_waste_tops`) the search
    remembers waste tops (:func:`known_from_seen`; ``known`` is its buffer); with an empty
    ``seen`` it remembers nothing. With
    ``qv.shape[0] == B``, ``qv[b]`` gets the searching seat's candidate values (NaN for the
    other actions, all NaN when nothing was searched): one searching seat per game then."""
    for b in range(st.shape[0]):
        g = st[b]
        filled = False
        for s in range(g[K.C_P]):
            if who[b, s] == 0 or counts[b, s] == 0:
                continue
            if not filled:
                known_from_seen(g, seen, b, known, places)
                hidden_from_row(g, hid, hid_n, known, places)
                filled = True
            a, dev, nc = search_core(g, prm, s, ids[b, s], counts[b, s], hid, hid_n, known,
                                     keys[b, s], samples, horizon, score_weight, margin, z,
                                     allow, buf_det, buf_g, buf_ids, sc, bs, acts, hid_work,
                                     places, cands, values, now, sq)  # fmt: skip
            out[b, s] = a
            deviated[b, s] = dev
            if qv.shape[0] == st.shape[0]:
                for x in range(qv.shape[1]):
                    qv[b, x] = np.nan
                if nc > 1:
                    for c in range(nc):
                        qv[b, cands[c]] = values[c]


class SearchBuffers:
    """The scratch arrays of :func:`search_core` / :func:`search_batch` for ``n_actions``."""

    def __init__(self, n_actions: int) -> None:
        self.hid = np.zeros((K.MAX_P, K.MAX_DECK), np.int32)
        self.hid_n = np.zeros(K.MAX_P, np.int64)
        self.det = np.zeros(K.ROW, np.int32)
        self.g = np.zeros(K.ROW, np.int32)
        self.ids = np.zeros(n_actions, np.int16)
        self.sc = np.zeros(K.SCRATCH, np.int64)
        self.bs = BK.empty_scratch(n_actions)
        self.acts = np.zeros(K.MAX_P, np.int64)
        self.hid_work = np.zeros((K.MAX_P, K.MAX_DECK), np.int32)
        self.places = np.zeros(K.MAX_DECK, np.int64)
        self.cands = np.zeros(n_actions + 1, np.int64)
        self.values = np.zeros(n_actions + 1, np.float64)
        self.now = np.zeros(n_actions + 1, np.float64)
        self.sq = np.zeros(n_actions + 1, np.float64)
        self.known = np.zeros(K.ROW, np.int8)
        self.no_seen = np.zeros((0, K.MAX_P, K.MAX_DECK), np.bool_)  # search_batch: no memory
        self.every = EVERY_CANDIDATE  # ``allow``: every candidate

    def tail(self) -> tuple:
        """The buffers after ``hid, hid_n`` in the kernels' argument order."""
        return (self.det, self.g, self.ids, self.sc, self.bs, self.acts, self.hid_work,
                self.places, self.cands, self.values, self.now, self.sq)  # fmt: skip


#: The ``allow`` of :func:`candidates` that allows every candidate (empty).
EVERY_CANDIDATE = np.zeros(0, np.bool_)


def candidate_kinds(text: str) -> frozenset:
    """The action kinds a ``candidates`` setting names: kinds or groups of
    :func:`gnome_env.nerts.actions.parse_kinds`, joined by ``+`` (a spec's spelling) or
    ``,``; a ``ValueError`` names the allowed ones."""
    return parse_kinds(text.replace("+", ","))


def allowed_candidates(config: NertsConfig, kinds: str | None) -> np.ndarray:
    """The ``allow`` flags of :func:`candidates` for the action kinds ``kinds`` names
    (:func:`candidate_kinds`, e.g. ``"turn"`` or ``"turn+foundation"``); None: every
    candidate (:data:`EVERY_CANDIDATE`). The expert's move is a candidate whatever its
    kind."""
    if kinds is None:
        return EVERY_CANDIDATE
    return action_table(config).of_kinds(candidate_kinds(kinds))


def sample_key(seed: int, hand: int, step: int) -> int:
    """The sample stream key of a decision at ``(hand, step)`` of a bot seeded ``seed``."""
    return (int(seed) % (2**62) * 1_000_003 + hand * 10_007 + step) % (2**62)


class SearchNertsAgent(NertsBot):
    """Spec ``search``: the expert's candidates tried in sampled playouts (module docstring)."""

    spec = "search"

    def __init__(
        self,
        seed: int | None = None,
        config: NertsConfig | None = None,
        samples: int = 16,
        horizon: int = 60,
        score_weight: float = 0.1,
        margin: float = 0.3,
        z: float = 0.0,
        memory: bool = False,
        candidates: str | None = None,
    ) -> None:
        super().__init__(seed, config)
        if self.config.jokers:
            raise ValueError("the Nerts search bot supports jokers=0 only")
        for name, value, low in (("samples", samples, 1), ("horizon", horizon, 1)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
                raise ValueError(f"search {name} must be an integer >= {low}, got {value!r}")
        for name, value in (("score_weight", score_weight), ("margin", margin), ("z", z)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise ValueError(f"search {name} must be a number >= 0, got {value!r}")
        self.samples = int(samples)
        self.horizon = int(horizon)
        self.score_weight = float(score_weight)
        self.margin = float(margin)
        self.z = float(z)
        if not isinstance(memory, (bool, np.bool_)) and memory not in (0, 1):
            raise ValueError(f"search memory must be 0 or 1, got {memory!r}")
        self.memory = WasteMemory() if memory else None
        if candidates is not None and not isinstance(candidates, str):
            raise ValueError(f"search candidates must be kinds joined by '+', got {candidates!r}")
        self.candidates = candidates
        allowed_candidates(self.config, candidates)  # a ValueError names the allowed kinds
        self._params: dict[NertsConfig, tuple[KernelParams, np.ndarray, SearchBuffers, np.ndarray]]
        self._params = {}
        self.decisions = 0
        self.deviated = 0

    def decide(self, view: NertsView) -> int:
        """The search's move for ``view.seat`` (module docstring)."""
        legal = view.legal_actions
        self.decisions += 1
        if self.memory is not None:  # every step's view, so that no step is missed
            self.memory.observe(view)
        if len(legal) == 1:
            return legal[0]
        if view.config not in self._params:
            params = KernelParams(view.config, "relative", "hand")
            bufs = SearchBuffers(params.n_actions)
            allow = allowed_candidates(view.config, self.candidates)
            self._params[view.config] = (params, np.zeros(K.ROW, np.int32), bufs, allow)
        params, base, bufs, allow = self._params[view.config]
        row_from_view(view, base, bufs.hid, bufs.hid_n, bufs.known, self.memory)
        ids = np.asarray(legal, np.int16)
        a, dev, _ = search_core(
            base, params.prm, view.seat, ids, len(legal), bufs.hid, bufs.hid_n, bufs.known,
            sample_key(self.seed or 0, view.hand, view.step), self.samples, self.horizon,
            self.score_weight, self.margin, self.z, allow, *bufs.tail(),
        )  # fmt: skip
        self.deviated += int(dev)
        return int(a)


def row_from_view(
    view: NertsView,
    g: np.ndarray,
    hid: np.ndarray,
    hid_n: np.ndarray,
    known: np.ndarray | None = None,
    memory: WasteMemory | None = None,
) -> None:
    """The kernel row of ``view``'s position with every hidden card left out (zeros), and
    each seat's hidden cards (``hid[j, :hid_n[j]]``): its deck less what the view shows.
    With ``memory`` (which has observed ``view``), every remembered card is written in its
    place and marked in ``known`` (:func:`free_places`), and left out of ``hid``."""
    cfg = view.config
    p = view.num_players
    g[:] = 0
    g[K.C_P] = p
    g[K.C_HAND] = view.hand
    g[K.C_STEPS] = view.step
    g[K.C_STALL] = view.stall
    g[K.C_REMEDY] = int(view.remedy_done)
    g[K.C_SLOTS_USED] = view.slots_used
    deck = 52
    shown = np.zeros((p, deck), bool)
    for s in range(p):
        g[K.S_SEEN + s] = view.seen[s]
        g[K.S_EXH + s] = int(view.exhausted[s])
        g[K.S_TOTAL + s] = view.totals[s]
        g[K.S_FOUND + s] = view.found_count[s]
        g[K.S_NLEN + s] = view.nerts_size[s]
        g[K.S_SLEN + s] = view.stock_size[s]
        g[K.S_WLEN + s] = view.waste_size[s]
        if view.nerts_size[s]:
            top = view.nerts_top[s]
            g[K.NERTS + s * K.MAX_DECK + view.nerts_size[s] - 1] = top
            shown[s, top] = True
        if view.waste_size[s]:
            top = view.waste_top[s]
            g[K.WASTE + s * K.MAX_DECK + view.waste_size[s] - 1] = top
            shown[s, top] = True
        for w, pile in enumerate(view.work[s]):
            g[K.S_WORK_LEN + s * K.MAX_W + w] = len(pile)
            at = K.work_at(s, w)
            g[at : at + len(pile)] = pile
            shown[s, list(pile)] = True
    log = 0
    for f in range(cfg.num_slots):
        slot = view.slots[f]
        g[K.SL_SUIT + f] = slot.suit
        g[K.SL_TOP + f] = slot.top
        g[K.SL_DONE + f] = int(slot.complete)
        for d, o in zip(slot.cards, slot.owners, strict=True):
            g[K.LOG_CARD + log] = d
            g[K.LOG_DECL + log] = d
            g[K.LOG_OWNER + log] = o
            g[K.LOG_SLOT + log] = f
            g[K.SL_OWN + f * K.MAX_P + o] += 1
            shown[o, d] = True
            log += 1
    for f in range(cfg.num_slots, K.MAX_F):
        g[K.SL_SUIT + f] = -1
    g[K.C_LOG_LEN] = log
    if known is not None:
        known[:] = 0
    if memory is not None:
        if known is None:
            raise ValueError("row_from_view: memory needs a known array")
        for s in range(p):
            for cell, card in memory.known(s):
                g[cell] = card
                known[cell] = 1
                shown[s, card] = True
    places = np.zeros(K.MAX_DECK, np.int64)
    for s in range(p):
        cards = np.flatnonzero(~shown[s])
        want = hidden_places(g, s, places) if known is None else free_places(g, s, places, known)
        if len(cards) != want:
            raise RuntimeError(f"seat {s}: {len(cards)} unseen cards for {want} hidden places")
        hid_n[s] = len(cards)
        hid[s, : len(cards)] = cards
