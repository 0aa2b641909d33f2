# ruff: noqa: E501  (the page: HTML, CSS and script in strings)
"""The replay viewer's HTML page (:func:`gnome_env.gnoming.viewer.render_html` fills in the data).

The shared page of :mod:`gnome_env.core.viewer_page` (controls, keys, play / pause, the view
selector, the address) with Gnoming A Round's drawing: the table before each decision (3x3
layouts, draw pile, piles A and B, the card in hand), the decision with its options, the
round's scoring and the game's end. Elements carry ids and ``data-`` attributes that
``tests/gnoming/test_viewer_browser.py`` reads (``#status``, ``#chosen``, ``.seat`` /
``.card`` with ``data-seat``, ``data-pos``, ``data-face``, ``#round-table``).
"""

from gnome_env.core.viewer_page import page

CSS = """  .topbar { display: flex; gap: 18px; align-items: flex-end; margin-bottom: 12px; flex-wrap: wrap; }
  .pile { text-align: center; font-size: 12px; }
  .pile .label { margin-top: 3px; }
  .info { font-size: 14px; line-height: 1.5; }
  .seats { display: flex; flex-wrap: wrap; gap: 10px; }
  .seat { background: #2a6640; border: 3px solid transparent; border-radius: 8px; padding: 6px 8px; }
  .seat.deciding { border-color: #ffd84a; }
  .seat.you { box-shadow: 0 0 0 2px #9ad0ff inset; }
  .seat .name { font-size: 13px; margin-bottom: 4px; white-space: nowrap; }
  .seat .total { font-size: 13px; margin-top: 4px; }
  .badge { font-size: 11px; background: #ffd84a; color: #222; border-radius: 3px; padding: 0 4px; margin-left: 4px; }
  .grid { display: grid; grid-template-columns: repeat(3, 38px); gap: 4px; }
  .card { width: 38px; height: 52px; border-radius: 5px; display: flex; align-items: center;
          justify-content: center; font-weight: bold; font-size: 18px; box-sizing: border-box;
          background: #fdfdf8; color: #222; border: 1px solid #999; position: relative; }
  .card.neg { color: #1f4fbf; }
  .card.mull { background: #bfe6b0; }
  .card.haz { background: #f4a13c; }
  .card.back { background: repeating-linear-gradient(45deg, #8b1e24, #8b1e24 4px, #a32a31 4px, #a32a31 8px);
               border: 2px solid #f1d7d7; color: transparent; }
  .card.back.peek { color: #ffe9a8; font-size: 14px; }
  .card.empty { background: transparent; border: 2px dashed #9fbfa8; }
  .card.scored { outline: 3px solid #ffd84a; }
  .card.removed { visibility: hidden; }
  table.options { border-collapse: collapse; width: 100%; font-size: 13px; }
  table.options td { padding: 2px 4px; border-bottom: 1px solid #24553a; }
  tr.chosen { background: #4a7a2a; font-weight: bold; }
  .bar { display: inline-block; height: 8px; background: #9ad0ff; vertical-align: middle; }
  table.scores { border-collapse: collapse; font-size: 13px; }
  table.scores th, table.scores td { padding: 2px 8px; border-bottom: 1px solid #24553a; text-align: right; }
"""

HELP = """Address: add #step=N, #round=R or #entry=N (and &amp;view=all or a seat number) to open there.
Keys: &larr; / &rarr; previous / next, &darr; next round end,
&uarr; previous round end, space play / pause, Home / End first / last.
Cards: backs are face down; in the omniscient view a face-down card's value is written on its back in yellow."""

SCRIPT = r"""
function cardNode(label, hiddenLabel, extra) {
  const c = el("div", "card");
  if (label === null || label === undefined) {
    c.classList.add("back");
    c.dataset.face = "down";
    if (hiddenLabel !== null && hiddenLabel !== undefined) {
      c.classList.add("peek");
      c.textContent = hiddenLabel;
    }
  } else {
    c.dataset.face = "up";
    c.textContent = label;
    if (label === "M") c.classList.add("mull");
    else if (label === "H") c.classList.add("haz");
    else if (label.startsWith("-")) c.classList.add("neg");
  }
  if (extra) c.classList.add(extra);
  return c;
}

function pileNode(title, top, size, hiddenTop) {
  const p = el("div", "pile");
  if (size === 0) { p.appendChild(cardNode(null, null, "empty")); }
  else p.appendChild(top === undefined ? cardNode(null, hiddenTop) : cardNode(top, null));
  p.appendChild(el("div", "label", title + " (" + size + ")"));
  return p;
}

function latestDecision(i) {  // the table to draw for entry i
  for (let j = i; j >= 0; j--) if (E[j].kind === "decision") return E[j];
  return null;
}

function drawTable(entry) {
  const box = document.getElementById("table");
  box.innerHTML = "";
  const seatView = viewSeat();
  if (entry.kind !== "decision") { drawRoundEnd(entry, box); return; }
  const t = entry.public;
  const hidden = seatView === null && entry.hidden ? entry.hidden : null;
  const top = el("div", "topbar");
  top.appendChild(pileNode("draw pile", undefined, t.draw_size, hidden ? hidden.draw_top : null));
  top.appendChild(pileNode("pile A", t.pile_tops[0], t.pile_sizes[0]));
  top.appendChild(pileNode("pile B", t.pile_tops[1], t.pile_sizes[1]));
  const hand = el("div", "pile");
  hand.id = "hand";
  hand.appendChild(t.hand === null ? cardNode(null, null, "empty") : cardNode(t.hand, null));
  hand.appendChild(el("div", "label", "in hand " + (t.hand_source || "")));
  top.appendChild(hand);
  const info = el("div", "info");
  info.id = "table-info";
  info.innerHTML = "";
  info.appendChild(el("div", null, "Round " + t.round + " / " + t.rounds + " \u00b7 turn " + (t.turns_played + 1)));
  info.appendChild(el("div", null, "phase: " + t.phase));
  info.appendChild(el("div", null, "hazards removed: " + t.hazards_removed));
  if (t.first_out !== null) info.appendChild(el("div", null, "seat " + t.first_out + " went out; turns left: " + t.endgame_turns_left));
  top.appendChild(info);
  box.appendChild(top);
  const seats = el("div", "seats");
  for (let s = 0; s < DATA.num_players; s++) {
    const panel = el("div", "seat");
    panel.dataset.seat = s;
    if (s === entry.seat) panel.classList.add("deciding");
    if (seatView !== null && s === seatView) panel.classList.add("you");
    const name = el("div", "name", "P" + s + " \u00b7 " + DATA.short_players[s]);
    if (seatView !== null && s === seatView) name.appendChild(el("span", "badge", "you"));
    if (t.first_out === s) name.appendChild(el("span", "badge", "OUT"));
    panel.appendChild(name);
    const grid = el("div", "grid");
    for (let q = 0; q < 9; q++) {
      const h = hidden ? hidden.layouts[s][q] : null;
      const c = cardNode(t.layouts[s][q], h);
      c.dataset.seat = s;
      c.dataset.pos = q;
      grid.appendChild(c);
    }
    panel.appendChild(grid);
    const tot = el("div", "total", "total " + t.totals[s]);
    tot.dataset.total = t.totals[s];
    panel.appendChild(tot);
    seats.appendChild(panel);
  }
  box.appendChild(seats);
}

function drawRoundEnd(entry, box) {
  const title = entry.kind === "game_over" ? "Game over" : "Round " + entry.round + " scored (ended by " + entry.ended_by + ")";
  box.appendChild(el("h2", null, title));
  if (entry.kind === "game_over") {
    const w = entry.winners.map(s => "P" + s + " " + DATA.short_players[s]).join(", ");
    const p = el("p", null, "Winner" + (entry.winners.length > 1 ? "s (shared, R23)" : "") + ": " + w);
    p.id = "winners";
    box.appendChild(p);
    const tbl = el("table", "scores");
    tbl.id = "final-table";
    const head = el("tr");
    ["seat", "player", "final total"].forEach(h => head.appendChild(el("th", null, h)));
    tbl.appendChild(head);
    for (let s = 0; s < DATA.num_players; s++) {
      const row = el("tr");
      row.dataset.seat = s;
      row.appendChild(el("td", null, "P" + s));
      row.appendChild(el("td", null, DATA.players[s]));
      const td = el("td", null, String(entry.totals[s]));
      td.dataset.col = "total";
      row.appendChild(td);
      tbl.appendChild(row);
    }
    box.appendChild(tbl);
    return;
  }
  const seats = el("div", "seats");
  for (let s = 0; s < DATA.num_players; s++) {
    const panel = el("div", "seat");
    panel.dataset.seat = s;
    const name = el("div", "name", "P" + s + " \u00b7 " + DATA.short_players[s]);
    if (entry.first_out === s) name.appendChild(el("span", "badge", "OUT"));
    panel.appendChild(name);
    const inLine = new Set();
    entry.lines[s].forEach(line => line.cells.forEach(q => inLine.add(q)));
    const grid = el("div", "grid");
    for (let q = 0; q < 9; q++) {
      const c = cardNode(entry.layouts[s][q], null, inLine.has(q) ? "scored" : null);
      c.dataset.seat = s;
      c.dataset.pos = q;
      grid.appendChild(c);
    }
    panel.appendChild(grid);
    const lines = entry.lines[s].map(l => (l.cells[1] - l.cells[0] === 1 ? "row " + (l.cells[0] / 3 + 1) : "column " + (l.cells[0] + 1)) + " of " + l.value + "s: \u2212" + l.value);
    panel.appendChild(el("div", "total", lines.length ? lines.join("; ") : "no matching line"));
    seats.appendChild(panel);
  }
  box.appendChild(seats);
}

function drawSide(entry) {
  const side = document.getElementById("side");
  side.innerHTML = "";
  if (entry.kind === "decision") {
    const panel = el("div", "panel");
    panel.id = "decision";
    panel.appendChild(el("h2", null, "Step " + entry.step + ": P" + entry.seat + " (" + DATA.short_players[entry.seat] + ") decides \u2014 " + entry.public.phase));
    const tbl = el("table", "options");
    const probs = entry.probs || null;
    for (const [id, name, words] of entry.legal) {
      const row = el("tr");
      row.dataset.action = id;
      if (id === entry.chosen) { row.classList.add("chosen"); row.id = "chosen"; }
      row.appendChild(el("td", null, id === entry.chosen ? "\u2714" : ""));
      row.appendChild(el("td", null, name));
      row.appendChild(el("td", null, words));
      if (probs) {
        const p = probs[String(id)] || 0;
        const td = el("td");
        const bar = el("span", "bar");
        bar.style.width = Math.round(60 * p) + "px";
        td.appendChild(bar);
        td.appendChild(el("span", null, " " + (100 * p).toFixed(1) + "%"));
        row.appendChild(td);
      }
      if (entry.compare !== undefined) row.appendChild(el("td", null, entry.compare === id ? "\u25C6 " + (DATA.compare_label || "compare") : ""));
      tbl.appendChild(row);
    }
    panel.appendChild(tbl);
    if (probs) panel.appendChild(el("p", "help", "Bars: the agent's action probabilities at this decision (computed when the page was written)."));
    if (entry.compare !== undefined) panel.appendChild(el("p", "help", "\u25C6: what " + (DATA.compare_label || "the comparison agent") + " would choose here."));
    side.appendChild(panel);
  } else if (entry.kind === "round_end") {
    const panel = el("div", "panel");
    panel.appendChild(el("h2", null, "Round " + entry.round + " scores (R18\u2013R22)"));
    const tbl = el("table", "scores");
    tbl.id = "round-table";
    const head = el("tr");
    ["seat", "layout (R18\u2013R20)", "first-out bonus (R21)", "round (R22)", "total"].forEach(h => head.appendChild(el("th", null, h)));
    tbl.appendChild(head);
    for (let s = 0; s < DATA.num_players; s++) {
      const row = el("tr");
      row.dataset.seat = s;
      row.appendChild(el("td", null, "P" + s + (entry.first_out === s ? " (out)" : "")));
      const cells = [["layout", entry.layout_scores[s]], ["bonus", entry.bonus[s]], ["round", entry.round_scores[s]], ["total", entry.totals[s]]];
      for (const [col, v] of cells) { const td = el("td", null, String(v)); td.dataset.col = col; row.appendChild(td); }
      tbl.appendChild(row);
    }
    panel.appendChild(tbl);
    side.appendChild(panel);
  }
}

// ---- the hooks of the shared page (gnome_env/core/viewer_page.py)
function drawEntry(entry) {
  drawTable(entry);
  drawSide(entry);
}

function entryWhere(entry) {
  const what = entry.kind === "decision" ? "step " + entry.step : (entry.kind === "round_end" ? "round " + entry.round + " end" : "game over");
  return what + " (last step " + (E.length ? E[E.length - 1].step : 0) + ")";
}

function markStatus(status, entry) {}

function isStop(entry) { return entry.kind !== "decision"; }

function findJump(text) {
  const step = Number(text);
  return E.findIndex(e => e.kind === "decision" && e.step === step);
}

function jumpMiss(text) {
  return "no step " + Number(text) + ": steps are 0.." + E[E.length - 1].step;
}

// #step=N (the decision of record step N), #round=R (round R's scoring)
function startFrom(want, start) {
  if (want.has("step")) { const j = E.findIndex(e => e.kind === "decision" && e.step === Number(want.get("step"))); if (j >= 0) start = j; }
  if (want.has("round")) { const j = E.findIndex(e => e.kind === "round_end" && e.round === Number(want.get("round"))); if (j >= 0) start = j; }
  return start;
}
"""

PAGE = page(
    css=CSS,
    stop_button=("next-round", "next round &raquo;", "next round end (Down arrow)"),
    jump=("step", 'type="number" min="0"'),
    help_html=HELP,
    script=SCRIPT,
)
