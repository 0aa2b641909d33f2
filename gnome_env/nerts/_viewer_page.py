# ruff: noqa: E501  (the page: HTML, CSS and script in strings)
"""The Nerts replay viewer's HTML page (:func:`gnome_env.nerts.viewer.render_html` fills in
the data).

The shared page of :mod:`gnome_env.core.viewer_page` (the same controls, keys, play / pause,
view selector and address as Gnoming A Round's) with Nerts' drawing: every seat's layout
(the Nerts pile's top and size, the work piles fanned, the stock and the waste), the
foundations with the owner of every card, and beside them the step's joint action in words
with its result (priority order, blocked plays, races for a foundation, progress, stall,
remedy), a hand's scoring and the game's end. In the omniscient view each seat's face-down
Nerts cards, stock order and waste are written in yellow under its layout; a seat's view
has none of them.

Elements carry ids and ``data-`` attributes that ``tests/nerts/test_nerts_viewer_browser.py``
reads: ``#status`` (``data-index``, ``data-kind``, ``data-step``, ``data-hand``), ``.seat``
(``data-seat``) with ``.card`` (``data-pile`` = nerts, stock, waste or work, ``data-pos``,
``data-face``, ``data-card``) and ``.hidden-cards`` (``data-what``), ``.slot``
(``data-slot``) with ``.chip`` (``data-owner``), ``#actions`` rows (``data-seat``, cells
``data-col`` = action, result), ``#collisions``, ``#events``, ``#hand-table`` and
``#final-table`` rows (``data-seat``, cells ``data-col``), ``#winners``.
"""

from gnome_env.core.viewer_page import page

CSS = """  .hud { font-size: 14px; line-height: 1.5; margin-bottom: 10px; }
  .hud .over { color: #9ad0ff; font-weight: bold; }
  .foundations { display: flex; flex-wrap: wrap; gap: 6px; margin-bottom: 12px; }
  .slot { background: #173f27; border-radius: 6px; padding: 3px 6px; font-size: 13px; }
  .slot.complete { outline: 2px solid #ffd84a; }
  .slot .num { color: #cfe3d4; margin-right: 4px; }
  .chip { display: inline-block; min-width: 16px; padding: 0 3px; margin: 0 1px; border-radius: 3px;
          text-align: center; color: #111; font-weight: bold; }
  .seats { display: grid; grid-template-columns: repeat(auto-fill, minmax(380px, 1fr)); gap: 10px; }
  .seat { background: #2a6640; border: 3px solid transparent; border-radius: 8px; padding: 6px 8px; }
  .seat.blocked { border-color: #eb3c32; }
  .seat.you { box-shadow: 0 0 0 2px #9ad0ff inset; }
  .seat .name { font-size: 14px; margin-bottom: 4px; white-space: nowrap; font-weight: bold; }
  .seat .did { font-size: 13px; margin-bottom: 6px; color: #dfeee3; min-height: 2.6em; }
  .seat .did.blocked { color: #ffb0a8; }
  .seat .score { font-size: 13px; margin-top: 6px; }
  .layout { display: flex; gap: 14px; align-items: flex-start; }
  .own { display: flex; flex-direction: column; gap: 6px; }
  .own .row { display: flex; gap: 6px; align-items: center; font-size: 12px; }
  .work { display: flex; gap: 6px; }
  .work .col { display: flex; flex-direction: column; align-items: center; }
  .work .col .card + .card { margin-top: -34px; }
  .work .idx { font-size: 11px; color: #cfe3d4; margin-top: 2px; }
  .card { width: 38px; height: 52px; border-radius: 5px; display: flex; align-items: flex-start;
          justify-content: flex-start; padding: 2px 3px; font-weight: bold; font-size: 14px; box-sizing: border-box;
          background: #fdfdf8; color: #222; border: 1px solid #999; }
  .card.red { color: #c8141e; }
  .card.joker { color: #7828aa; }
  .card.back { background: repeating-linear-gradient(45deg, #8b1e24, #8b1e24 4px, #a32a31 4px, #a32a31 8px);
               border: 2px solid #f1d7d7; color: transparent; }
  .card.empty { background: transparent; border: 2px dashed #9fbfa8; }
  .card.moving { outline: 3px solid #ffd84a; }
  .hidden-cards { font-size: 12px; color: #ffe9a8; margin-top: 4px; }
  table.steps, table.scores { border-collapse: collapse; width: 100%; font-size: 13px; }
  table.steps td, table.steps th, table.scores td, table.scores th { padding: 2px 4px; border-bottom: 1px solid #24553a; text-align: left; }
  table.scores td[data-col] { text-align: right; }
  tr.blocked td { color: #ffb0a8; }
  ul.events, ul.collisions { margin: 4px 0 0 0; padding-left: 18px; font-size: 13px; }
  details { font-size: 12px; margin-top: 4px; }
"""

HELP = """Address: add #hand=H&amp;step=K (step K of hand H), #hand=H (hand H's end) or #entry=N (and &amp;view=all or a seat number) to open there.
Keys: &larr; / &rarr; previous / next, &darr; next hand end, &uarr; previous hand end, space play / pause, Home / End first / last.
The step box takes K (a step of the hand shown) or H:K. Each step entry shows the table before the step and what everyone did in it.
In the omniscient view the cards nobody sees (face-down Nerts cards, the stock's order, the waste under its top) are written in yellow."""

SCRIPT = r"""
const SEAT_COLOURS = ["#ffd65a", "#78c8ff", "#ff96cd", "#aaeb78", "#ffaa5a", "#cdafff"];

function isRed(label) { return label.includes("\u2665") || label.includes("\u2666"); }

function cardNode(label, pile, pos) {
  const c = el("div", "card");
  c.dataset.pile = pile;
  if (pos !== undefined) c.dataset.pos = pos;
  if (label === "back") { c.classList.add("back"); c.dataset.face = "down"; }
  else if (label === null || label === undefined) { c.classList.add("empty"); c.dataset.face = "none"; }
  else {
    c.dataset.face = "up";
    c.dataset.card = label;
    c.textContent = label === "joker" ? "JK" : label;
    if (label === "joker") c.classList.add("joker");
    else if (isRed(label)) c.classList.add("red");
  }
  return c;
}

function ownRow(card, title, count) {
  const row = el("div", "row");
  row.appendChild(card);
  const words = el("div");
  words.appendChild(el("div", null, title));
  words.appendChild(el("div", null, count));
  row.appendChild(words);
  return row;
}

function seatName(s) { return "player " + s + " (" + DATA.short_players[s] + ")"; }

function drawHud(entry, t) {
  const hud = el("div", "hud");
  hud.id = "hud";
  hud.appendChild(el("div", null, "Hand " + t.hand + " \u00b7 step " + t.step + " (at most " + t.max_steps + ") \u00b7 totals " + t.totals.join(", ")));
  hud.appendChild(el("div", null, t.stall_words));
  if (entry.kind === "step") hud.appendChild(el("div", null, "this step's priority order (N20): " + entry.priority.map(s => "player " + s).join(", then ")));
  if (entry.kind === "hand_end") hud.appendChild(el("div", "over", "Hand " + entry.hand + " over: " + entry.reason_words));
  if (entry.kind === "position") hud.appendChild(el("div", "over", "The record ends here, in the middle of hand " + entry.hand + "."));
  return hud;
}

function drawFoundations(t) {
  const box = el("div", "foundations");
  box.id = "foundations";
  if (!t.slots.length) box.appendChild(el("div", "help", "foundations: none yet (an ace starts one; anyone builds on any of them, up by suit)"));
  for (const slot of t.slots) {
    const s = el("div", "slot");
    s.dataset.slot = slot.slot;
    if (slot.state === "complete") s.classList.add("complete");
    s.appendChild(el("span", "num", "#" + slot.slot));
    for (const [card, owner] of slot.cards) {
      const chip = el("span", "chip", card);
      chip.dataset.owner = owner;
      chip.title = card + " of player " + owner;
      chip.style.background = SEAT_COLOURS[owner % SEAT_COLOURS.length];
      s.appendChild(chip);
    }
    box.appendChild(s);
  }
  return box;
}

function drawSeat(entry, t, hidden, s, seatView) {
  const seat = t.seats[s];
  const panel = el("div", "seat");
  panel.dataset.seat = s;
  const blocked = entry.kind === "step" && entry.blocked[s];
  if (blocked) panel.classList.add("blocked");
  if (seatView !== null && s === seatView) panel.classList.add("you");
  const name = el("div", "name", "P" + s + " \u00b7 " + DATA.short_players[s] + (seatView === s ? " (you)" : "") + (seat.exhausted ? " \u00b7 stuck (N24)" : ""));
  name.style.color = SEAT_COLOURS[s % SEAT_COLOURS.length];
  panel.appendChild(name);
  if (entry.kind === "step") {
    const did = el("div", "did" + (blocked ? " blocked" : ""), "this step: " + entry.words[s]);
    did.dataset.seat = s;
    panel.appendChild(did);
  }
  const layout = el("div", "layout");
  const own = el("div", "own");
  own.appendChild(ownRow(seat.nerts_size ? cardNode(seat.nerts_top, "nerts") : cardNode(null, "nerts"), "Nerts pile", seat.nerts_size + " left (" + (-2 * seat.nerts_size) + ")"));
  own.appendChild(ownRow(cardNode(seat.stock_size ? "back" : null, "stock"), "stock", seat.stock_size + " cards"));
  own.appendChild(ownRow(cardNode(seat.waste_top, "waste"), "waste", seat.waste_size + " cards"));
  layout.appendChild(own);
  const work = el("div", "work");
  seat.work.forEach((pile, w) => {
    const col = el("div", "col");
    col.dataset.pile = w;
    if (!pile.length) col.appendChild(cardNode(null, "work", w));
    pile.forEach((card, i) => { const c = cardNode(card, "work", w); c.dataset.depth = i; col.appendChild(c); });
    col.appendChild(el("div", "idx", "work " + w));
    work.appendChild(col);
  });
  layout.appendChild(work);
  panel.appendChild(layout);
  const score = el("div", "score", "on foundations " + seat.on_foundations + " \u00b7 hand score " + seat.hand_score + " \u00b7 total " + seat.total);
  score.dataset.handScore = seat.hand_score;
  panel.appendChild(score);
  if (hidden) {
    const h = hidden.seats[s];
    for (const [what, title, cards] of [["nerts", "face-down Nerts cards (bottom first)", h.nerts_down], ["stock", "stock (top first)", h.stock], ["waste", "waste (bottom first)", h.waste]]) {
      const line = el("div", "hidden-cards", title + ": " + (cards.length ? cards.join(" ") : "-"));
      line.dataset.seat = s;
      line.dataset.what = what;
      panel.appendChild(line);
    }
  }
  return panel;
}

function drawTable(entry) {
  const box = document.getElementById("table");
  box.innerHTML = "";
  if (entry.kind === "game_over") { drawGameOver(entry, box); return; }
  const t = entry.public;
  const seatView = viewSeat();
  const hidden = seatView === null && entry.hidden ? entry.hidden : null;
  box.appendChild(drawHud(entry, t));
  box.appendChild(drawFoundations(t));
  const seats = el("div", "seats");
  for (let s = 0; s < DATA.num_players; s++) seats.appendChild(drawSeat(entry, t, hidden, s, seatView));
  box.appendChild(seats);
}

function drawGameOver(entry, box) {
  box.appendChild(el("h2", null, "Game over after hand " + entry.hand));
  const w = entry.winners.map(s => "P" + s + " " + DATA.short_players[s]).join(", ");
  const p = el("p", null, "Winner" + (entry.winners.length > 1 ? "s (shared)" : "") + ": " + w + " \u2014 " + entry.why);
  p.id = "winners";
  box.appendChild(p);
  const tbl = el("table", "scores");
  tbl.id = "final-table";
  const head = el("tr");
  ["seat", "player", "last hand", "final total"].forEach(h => head.appendChild(el("th", null, h)));
  tbl.appendChild(head);
  for (let s = 0; s < DATA.num_players; s++) {
    const row = el("tr");
    row.dataset.seat = s;
    row.appendChild(el("td", null, "P" + s));
    row.appendChild(el("td", null, DATA.players[s]));
    for (const [col, v] of [["last", entry.last_hand_scores[s]], ["total", entry.totals[s]]]) { const td = el("td", null, String(v)); td.dataset.col = col; row.appendChild(td); }
    tbl.appendChild(row);
  }
  box.appendChild(tbl);
}

function drawStepSide(entry, side) {
  const panel = el("div", "panel");
  panel.id = "step";
  panel.appendChild(el("h2", null, "Hand " + entry.hand + ", step " + entry.step + ": what everyone did (all at once, N18)"));
  const tbl = el("table", "steps");
  tbl.id = "actions";
  const head = el("tr");
  ["seat", "action", "what it did", "result"].forEach(h => head.appendChild(el("th", null, h)));
  tbl.appendChild(head);
  for (let s = 0; s < DATA.num_players; s++) {
    const row = el("tr");
    row.dataset.seat = s;
    if (entry.blocked[s]) row.classList.add("blocked");
    row.appendChild(el("td", null, "P" + s));
    const action = el("td", null, entry.actions[s] + " " + entry.names[s]);
    action.dataset.col = "action";
    action.dataset.action = entry.actions[s];
    row.appendChild(action);
    row.appendChild(el("td", null, entry.words[s]));
    const result = el("td", null, entry.blocked[s] ? "blocked" : (entry.progress_by[s] ? "done, progress" : "done"));
    result.dataset.col = "result";
    row.appendChild(result);
    tbl.appendChild(row);
  }
  panel.appendChild(tbl);
  if (entry.collisions.length) {
    panel.appendChild(el("h2", null, "Races for a foundation (N20, N21)"));
    const list = el("ul", "collisions");
    list.id = "collisions";
    for (const c of entry.collisions) {
      const who = c.seats.map(s => "player " + s).join(" and ");
      let text = who + " played " + c.card + " onto foundation " + c.slot + " in the same step; in priority order " + c.seats.join(", ") + ": ";
      if (c.blocked.length) text += "player " + c.placed.join(", ") + " placed it, " + c.blocked.map(s => "player " + s).join(" and ") + " blocked (the card stays)";
      else text += "both keep (foundation_tie=both_keep): the cards are stacked in that order";
      const li = el("li", null, text);
      li.dataset.slot = c.slot;
      li.dataset.placed = c.placed.join(",");
      li.dataset.blocked = c.blocked.join(",");
      list.appendChild(li);
    }
    panel.appendChild(list);
  }
  panel.appendChild(el("h2", null, "The table after the step"));
  const events = el("ul", "events");
  events.id = "events";
  for (const text of entry.events) events.appendChild(el("li", null, text));
  if (entry.remedy) events.dataset.remedy = "yes";
  panel.appendChild(events);
  const seatView = viewSeat();
  const seats = seatView === null ? [...Array(DATA.num_players).keys()] : [seatView];
  for (const s of seats) {
    const d = el("details");
    d.dataset.seat = s;
    d.appendChild(el("summary", null, "P" + s + ": " + entry.legal[s].length + " legal actions"));
    d.appendChild(el("div", null, entry.legal[s].map(a => a + " " + DATA.action_names[a]).join(", ")));
    panel.appendChild(d);
  }
  side.appendChild(panel);
}

function drawHandEndSide(entry, side) {
  const panel = el("div", "panel");
  panel.appendChild(el("h2", null, "Hand " + entry.hand + " scores (N30): +1 per card on a foundation, \u22122 per card left in the Nerts pile"));
  panel.appendChild(el("p", "help", "Why it ended: " + entry.reason_words + (entry.callers.length ? "; called by " + entry.callers.map(s => "P" + s).join(", ") : "")));
  const tbl = el("table", "scores");
  tbl.id = "hand-table";
  const head = el("tr");
  ["seat", "on foundations", "Nerts left", "hand score", "total"].forEach(h => head.appendChild(el("th", null, h)));
  tbl.appendChild(head);
  for (let s = 0; s < DATA.num_players; s++) {
    const row = el("tr");
    row.dataset.seat = s;
    row.appendChild(el("td", null, "P" + s + (entry.callers.includes(s) ? " (called)" : "")));
    const cells = [["found", entry.on_foundations[s]], ["nerts", entry.nerts_left[s]], ["hand", entry.scores[s]], ["total", entry.totals[s]]];
    for (const [col, v] of cells) { const td = el("td", null, String(v)); td.dataset.col = col; row.appendChild(td); }
    tbl.appendChild(row);
  }
  panel.appendChild(tbl);
  side.appendChild(panel);
}

function drawSide(entry) {
  const side = document.getElementById("side");
  side.innerHTML = "";
  if (entry.kind === "step") drawStepSide(entry, side);
  else if (entry.kind === "hand_end") drawHandEndSide(entry, side);
}

// ---- the hooks of the shared page (gnome_env/core/viewer_page.py)
function drawEntry(entry) {
  drawTable(entry);
  drawSide(entry);
}

function entryWhere(entry) {
  if (entry.kind === "step") return "hand " + entry.hand + ", step " + entry.step;
  if (entry.kind === "hand_end") return "hand " + entry.hand + " end (" + entry.reason + ")";
  if (entry.kind === "position") return "hand " + entry.hand + ", the record's end";
  return "game over";
}

function markStatus(status, entry) { status.dataset.hand = entry.hand; }

function isStop(entry) { return entry.kind !== "step"; }

function stepIndex(hand, step) {
  return E.findIndex(e => e.kind === "step" && e.hand === hand && e.step === step);
}

function findJump(text) {
  const parts = String(text).trim().split(":");
  if (parts.length === 2) return stepIndex(Number(parts[0]), Number(parts[1]));
  return parts.length === 1 && parts[0] !== "" ? stepIndex(E[index].hand, Number(parts[0])) : -1;
}

function jumpMiss(text) {
  const hand = String(text).includes(":") ? Number(String(text).split(":")[0]) : E[index].hand;
  const steps = E.filter(e => e.kind === "step" && e.hand === hand).map(e => e.step);
  if (!steps.length) return "no hand " + hand + " in this record: hands are 0.." + E[E.length - 1].hand;
  return "no step " + String(text).trim() + ": the steps of hand " + hand + " are 0.." + Math.max(...steps) + " (write K or H:K)";
}

// #hand=H&step=K (step K of hand H), #hand=H (the end of hand H)
function startFrom(want, start) {
  if (want.has("hand") || want.has("step")) {
    const hand = Number(want.get("hand") || 0);
    const j = want.has("step") ? stepIndex(hand, Number(want.get("step"))) : E.findIndex(e => e.kind === "hand_end" && e.hand === hand);
    if (j >= 0) start = j;
  }
  return start;
}
"""

PAGE = page(
    css=CSS,
    stop_button=("next-hand", "next hand end &raquo;", "next hand end (Down arrow)"),
    jump=("step", 'type="text" placeholder="K or H:K"'),
    help_html=HELP,
    script=SCRIPT,
)
