# ruff: noqa: E501  (the page: HTML, CSS and script in one string)
"""The replay viewer's HTML page (:func:`gnome_env.gnoming.viewer.render_html` fills in the data).

One file, no network: inline CSS, an inline script, the game as JSON in a
``<script type="application/json">`` element. Elements carry ids and ``data-`` attributes
that ``tests/gnoming/test_viewer_browser.py`` reads (``#status``, ``#chosen``, ``.seat`` /
``.card`` with ``data-seat``, ``data-pos``, ``data-face``, ``#round-table``).
"""

PAGE = r"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title>
<style>
  body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0;
         background: #1f5130; color: #f4f4ec; }
  header { padding: 8px 16px; background: #163b23; }
  header h1 { font-size: 18px; margin: 0 0 4px 0; }
  header .players { font-size: 13px; color: #cfe3d4; }
  #controls { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; padding: 8px 16px;
              background: #18432a; position: sticky; top: 0; z-index: 2; }
  #controls button, #controls select, #controls input { font-size: 14px; padding: 3px 8px; }
  #controls input { width: 70px; }
  #status { margin-left: 8px; font-size: 14px; }
  main { display: flex; flex-wrap: wrap; gap: 16px; padding: 12px 16px; }
  #table { flex: 3 1 560px; }
  #side { flex: 2 1 320px; }
  .topbar { display: flex; gap: 18px; align-items: flex-end; margin-bottom: 12px; flex-wrap: wrap; }
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
  .panel { background: #173f27; border-radius: 8px; padding: 8px 12px; margin-bottom: 12px; }
  .panel h2 { font-size: 15px; margin: 0 0 6px 0; }
  table.options { border-collapse: collapse; width: 100%; font-size: 13px; }
  table.options td { padding: 2px 4px; border-bottom: 1px solid #24553a; }
  tr.chosen { background: #4a7a2a; font-weight: bold; }
  .bar { display: inline-block; height: 8px; background: #9ad0ff; vertical-align: middle; }
  table.scores { border-collapse: collapse; font-size: 13px; }
  table.scores th, table.scores td { padding: 2px 8px; border-bottom: 1px solid #24553a; text-align: right; }
  .help { font-size: 12px; color: #cfe3d4; }
</style>
</head>
<body>
<header>
  <h1 id="title"></h1>
  <div class="players" id="players"></div>
</header>
<div id="controls">
  <button id="first" title="first entry (Home)">&laquo; first</button>
  <button id="prev" title="previous (Left arrow)">&#x25C0; prev</button>
  <button id="next" title="next (Right arrow)">next &#x25B6;</button>
  <button id="next-round" title="next round end (Down arrow)">next round &raquo;</button>
  <button id="play" title="play / pause (Space)">play</button>
  <select id="speed" title="seconds per entry">
    <option value="1500">slow</option><option value="700" selected>normal</option><option value="250">fast</option>
  </select>
  <label>step <input id="jump" type="number" min="0"></label><button id="go">go</button>
  <label>view <select id="view"></select></label>
  <span id="status"></span>
</div>
<main>
  <section id="table"></section>
  <section id="side"></section>
</main>
<p class="help" style="padding: 0 16px 12px 16px">Address: add #step=N, #round=R or #entry=N (and &amp;view=all or a seat number) to open there.
Keys: &larr; / &rarr; previous / next, &darr; next round end,
&uarr; previous round end, space play / pause, Home / End first / last.
Cards: backs are face down; in the omniscient view a face-down card's value is written on its back in yellow.</p>
<script type="application/json" id="game-data">__DATA__</script>
<script>
"use strict";
const DATA = JSON.parse(document.getElementById("game-data").textContent);
const E = DATA.entries;
let index = 0;
let timer = null;

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function viewSeat() {  // null: omniscient; else the seat whose view is shown
  const v = document.getElementById("view").value;
  return v === "all" ? null : Number(v);
}

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

function show(i) {
  index = Math.max(0, Math.min(E.length - 1, i));
  const entry = E[index];
  drawTable(entry);
  drawSide(entry);
  const status = document.getElementById("status");
  status.dataset.index = index;
  status.dataset.kind = entry.kind;
  status.dataset.step = entry.step;
  const what = entry.kind === "decision" ? "step " + entry.step : (entry.kind === "round_end" ? "round " + entry.round + " end" : "game over");
  status.textContent = "entry " + (index + 1) + " / " + E.length + " \u00b7 " + what + " (last step " + (E.length ? E[E.length - 1].step : 0) + ")";
}

function nextRound(direction) {
  for (let j = index + direction; j >= 0 && j < E.length; j += direction) {
    if (E[j].kind !== "decision") { show(j); return; }
  }
  show(direction > 0 ? E.length - 1 : 0);
}

function togglePlay() {
  const button = document.getElementById("play");
  if (timer !== null) { clearInterval(timer); timer = null; button.textContent = "play"; return; }
  button.textContent = "pause";
  timer = setInterval(() => {
    if (index >= E.length - 1) { togglePlay(); return; }
    show(index + 1);
  }, Number(document.getElementById("speed").value));
}

function jump() {
  const step = Number(document.getElementById("jump").value);
  const j = E.findIndex(e => e.kind === "decision" && e.step === step);
  if (j >= 0) show(j);
  else document.getElementById("status").textContent = "no step " + step + ": steps are 0.." + E[E.length - 1].step;
}

function setup() {
  document.getElementById("title").textContent = DATA.title;
  document.getElementById("players").textContent = DATA.players.map((p, s) => "P" + s + ": " + p).join(" \u00b7 ") + " \u00b7 game seed " + DATA.seed + (DATA.where ? " \u00b7 " + DATA.where : "");
  const view = document.getElementById("view");
  if (DATA.seat_only === null) view.appendChild(new Option("omniscient", "all"));
  for (let s = 0; s < DATA.num_players; s++) {
    if (DATA.seat_only === null || DATA.seat_only === s) view.appendChild(new Option("seat " + s + " (" + DATA.short_players[s] + ")", String(s)));
  }
  view.addEventListener("change", () => show(index));
  document.getElementById("first").addEventListener("click", () => show(0));
  document.getElementById("prev").addEventListener("click", () => show(index - 1));
  document.getElementById("next").addEventListener("click", () => show(index + 1));
  document.getElementById("next-round").addEventListener("click", () => nextRound(1));
  document.getElementById("play").addEventListener("click", togglePlay);
  document.getElementById("go").addEventListener("click", jump);
  document.getElementById("jump").addEventListener("keydown", ev => { if (ev.key === "Enter") jump(); ev.stopPropagation(); });
  document.addEventListener("keydown", ev => {
    if (ev.target && ev.target.tagName === "SELECT") return;
    if (ev.key === "ArrowRight") { show(index + 1); ev.preventDefault(); }
    else if (ev.key === "ArrowLeft") { show(index - 1); ev.preventDefault(); }
    else if (ev.key === "ArrowDown") { nextRound(1); ev.preventDefault(); }
    else if (ev.key === "ArrowUp") { nextRound(-1); ev.preventDefault(); }
    else if (ev.key === " ") { togglePlay(); ev.preventDefault(); }
    else if (ev.key === "Home") { show(0); ev.preventDefault(); }
    else if (ev.key === "End") { show(E.length - 1); ev.preventDefault(); }
  });
  window.addEventListener("hashchange", fromAddress);
  fromAddress();
}

// Open at a place given in the address: #step=N (the decision of record step N),
// #entry=N (0-based entry), #round=R (round R's scoring), &view=all|S (a seat's view).
function fromAddress() {
  const view = document.getElementById("view");
  const want = new URLSearchParams(location.hash.slice(1));
  if (want.has("view") && [...view.options].some(o => o.value === want.get("view"))) view.value = want.get("view");
  let start = 0;
  if (want.has("entry")) start = Number(want.get("entry")) || 0;
  if (want.has("step")) { const j = E.findIndex(e => e.kind === "decision" && e.step === Number(want.get("step"))); if (j >= 0) start = j; }
  if (want.has("round")) { const j = E.findIndex(e => e.kind === "round_end" && e.round === Number(want.get("round"))); if (j >= 0) start = j; }
  show(start);
}
setup();
</script>
</body>
</html>
"""
