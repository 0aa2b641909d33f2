# ruff: noqa: E501  (the page: HTML, CSS and script in strings)
"""The Ginny-O replay viewer's HTML page (:func:`gnome_env.ginny_o.viewer.render_html` fills
in the data).

The shared page of :mod:`gnome_env.core.viewer_page` (the same controls, keys, play / pause,
view selector and address as Gnoming A Round's and Nerts') with Ginny-O's drawing: the 15x15
board with its premium squares and a legend for them (G6, G7, G26), the turn's new tiles
framed and the cells of the lines it scored marked (hover a line to light up its cells),
every seat's score and rack size (and, where the view may see it, its rack), and beside
them what the turn did: each placement with every scored line and its G27 arithmetic, a
return (how many tiles) or a pass, the box count, and the end of the game (G29) with the
rack penalties (G30), the final scores and the winners (G31). A seat's private part (its
rack, its action ids, the tiles it returned or drew) is shown in yellow, only in the
omniscient view and in that seat's own view.

Elements carry ids and ``data-`` attributes that ``tests/ginny_o/test_ginny_viewer_browser.py``
reads: ``#status`` (``data-index``, ``data-kind``, ``data-step``, ``data-turn``,
``data-seat``), ``#board`` with ``.sq`` (``data-r``, ``data-c``, ``data-square``; class
``scored`` in a scored line) holding ``.tile`` (``data-card``, ``data-new``), ``#legend``
``.legend-item`` (``data-square``), ``#seats`` rows (``data-seat``; cells ``data-col`` =
score, rack_size) and ``.rack`` (``data-seat``) with ``.tile``, ``#turn`` with
``.placement`` (``data-score``) and its ``table.lines`` rows (``data-line``; cells
``data-col`` = where, reads, arithmetic, score), ``#turn-words``, ``.private``
(``data-seat``, ``data-what``), ``#final-table`` rows (``data-seat``; cells ``data-col`` =
score, penalty, final), ``#end-reason`` (``data-reason``) and ``#winners``.
"""

from gnome_env.core.viewer_page import page

CSS = """  .hud { font-size: 14px; line-height: 1.5; margin-bottom: 8px; }
  .hud .over { color: #9ad0ff; font-weight: bold; }
  .boardwrap { display: flex; gap: 14px; align-items: flex-start; flex-wrap: wrap; }
  .board { display: grid; grid-template-columns: 18px repeat(15, 30px); grid-auto-rows: 30px; gap: 1px;
           background: #3c4632; padding: 2px; border-radius: 4px; }
  .board .lab { background: #1f5130; color: #cfe3d4; font-size: 10px; display: flex; align-items: center; justify-content: center; }
  .sq { position: relative; display: flex; align-items: center; justify-content: center; font-size: 11px;
        font-weight: bold; color: rgba(0,0,0,0.45); }
  .sq.scored { box-shadow: inset 0 0 0 3px #9ad0ff; }
  .sq.hot { box-shadow: inset 0 0 0 3px #ffffff; }
  .sq .mark { pointer-events: none; }
  .sq .corner { position: absolute; right: 1px; top: 1px; width: 7px; height: 7px; border-radius: 1px;
                border: 1px solid rgba(0,0,0,0.5); }
  .tile { width: 26px; height: 26px; border-radius: 3px; background: #fdfdf8; color: #222; border: 1px solid #777;
          display: flex; align-items: center; justify-content: center; font-size: 11px; font-weight: bold;
          box-sizing: border-box; }
  .tile.red { color: #c8141e; }
  .tile.joker { background: #ded0f5; color: #7828aa; }
  .tile.new { outline: 3px solid #ff8c00; outline-offset: -1px; }
  .rack { display: inline-flex; gap: 3px; flex-wrap: wrap; }
  .rack .tile { width: 28px; }
  #legend { font-size: 12px; max-width: 300px; }
  #legend .legend-item { display: flex; gap: 6px; align-items: flex-start; margin-bottom: 4px; }
  #legend .sw { flex: 0 0 18px; height: 18px; border-radius: 3px; display: flex; align-items: center;
                justify-content: center; font-weight: bold; color: rgba(0,0,0,0.55); }
  table.seats, table.lines, table.scores { border-collapse: collapse; width: 100%; font-size: 13px; margin-top: 6px; }
  table.seats td, table.seats th, table.lines td, table.lines th, table.scores td, table.scores th {
    padding: 2px 4px; border-bottom: 1px solid #24553a; text-align: left; vertical-align: middle; }
  table.lines td[data-col=score], table.scores td[data-col] { text-align: right; }
  tr.mover td { background: #24553a; }
  tr.winner td { color: #9ad0ff; font-weight: bold; }
  .placement { margin: 6px 0 10px 0; }
  .placement .head { font-size: 14px; font-weight: bold; }
  .placement .sub { font-size: 12px; color: #cfe3d4; }
  ul.words { margin: 4px 0 0 0; padding-left: 18px; font-size: 13px; }
  .private { font-size: 12px; color: #ffe9a8; margin-top: 4px; }
  .hiddenrack { font-size: 12px; color: #9fbfa8; }
"""

HELP = """Address: add #turn=T (turn T) or #entry=N (and &amp;view=all or a seat number) to open there.
Keys: &larr; / &rarr; previous / next, &darr; / &uarr; next / previous turn with a placement, space play / pause, Home / End first / last.
The turn box takes T, a turn number. Each turn shows the board after the turn: its new tiles framed in orange, the cells of the lines it scored in blue (hover a line to light it up).
A seat's rack and its own moves (in yellow) are shown in the omniscient view and in that seat's view only."""

SCRIPT = r"""
const SEAT_COLOURS = ["#ffd65a", "#78c8ff", "#ff96cd", "#aaeb78"];
const SQUARE_COLOURS = Object.fromEntries(DATA.legend.squares.map(q => [q.letter, q.colour]));
SQUARE_COLOURS["."] = "#d6c8a0";

function isRedCard(text) { const s = text[text.length - 1]; return s === "D" || s === "H"; }

function tileNode(text, joker) {
  const t = el("div", "tile" + (joker ? " joker" : "") + (!joker && isRedCard(text) ? " red" : ""), joker ? text.replace("*=", "*") : text);
  t.dataset.card = text;
  if (joker) t.title = "a joker standing for " + text.slice(2) + " (G11)";
  return t;
}

function seatName(s) { return "P" + s + " (" + DATA.short_players[s] + ")"; }

function visiblePrivate(entry) {  // the private items the view may see: [[seat, item], ...]
  const v = viewSeat();
  const out = [];
  entry.private.forEach((p, s) => { if (p && (v === null || v === s)) out.push([s, p]); });
  return out;
}

function drawHud(entry) {
  const t = entry.public;
  const hud = el("div", "hud");
  hud.id = "hud";
  let head;
  if (entry.kind === "start") head = "Before turn " + t.turn + ": P" + entry.first_player + " moves first (G12) and has drawn its first tile (G13)";
  else if (entry.kind === "turn") head = "After turn " + t.turn + " (of at most " + t.turn_cap + ", G29d): P" + entry.seat + " moved";
  else if (entry.kind === "game_over") head = "Game over after " + (t.turn) + " turns";
  else head = "The record ends here, before turn " + t.turn + ": the game is not over";
  hud.appendChild(el("div", entry.kind === "game_over" || entry.kind === "position" ? "over" : null, head));
  const stall = t.stall_limit ? "no tile placed for " + t.stall + " turn" + (t.stall === 1 ? "" : "s") + " (G29c ends the game at " + t.stall_limit + ")" : "the stall rule is off (stall_rounds=0)";
  hud.appendChild(el("div", null, "box: " + t.box + " tile" + (t.box === 1 ? "" : "s") + " \u00b7 scores " + t.scores.join(", ") + " \u00b7 " + stall + (t.pass_streak ? " \u00b7 " + t.pass_streak + " pass" + (t.pass_streak === 1 ? "" : "es") + " in a row (G29a)" : "")));
  return hud;
}

function drawBoard(entry) {
  const t = entry.public;
  const grid = el("div", "board");
  grid.id = "board";
  const tiles = new Map(t.board.map(b => [b[0] * 15 + b[1], b]));
  const fresh = new Set();
  const lines = new Map();
  if (entry.kind === "turn") {
    entry.play.placements.forEach((p, i) => {
      p.tiles.forEach(x => fresh.add(x[0] * 15 + x[1]));
      p.lines.forEach((l, j) => l.cells.forEach(([r, c]) => {
        const key = r * 15 + c;
        if (!lines.has(key)) lines.set(key, []);
        lines.get(key).push(i + ":" + j);
      }));
    });
  }
  grid.appendChild(el("div", "lab", ""));
  for (let c = 0; c < 15; c++) grid.appendChild(el("div", "lab", String(c)));
  for (let r = 0; r < 15; r++) {
    grid.appendChild(el("div", "lab", String(r)));
    for (let c = 0; c < 15; c++) {
      const letter = DATA.layout[r][c];
      const sq = el("div", "sq");
      sq.dataset.r = r;
      sq.dataset.c = c;
      sq.dataset.square = letter;
      sq.style.background = SQUARE_COLOURS[letter];
      const key = r * 15 + c;
      if (lines.has(key)) { sq.classList.add("scored"); sq.dataset.lines = lines.get(key).join(" "); }
      const tile = tiles.get(key);
      if (tile) {
        const node = tileNode(tile[2], tile[3]);
        node.dataset.region = tile[4];
        if (fresh.has(key)) { node.classList.add("new"); node.dataset.new = "1"; }
        sq.appendChild(node);
        if (letter !== ".") {
          const corner = el("div", "corner");
          corner.style.background = SQUARE_COLOURS[letter];
          corner.title = "covered " + letter + " square";
          sq.appendChild(corner);
        }
      } else if (letter !== ".") {
        sq.appendChild(el("span", "mark", letter === "*" ? "\u2605" : letter.toUpperCase()));
      }
      sq.title = "(" + r + "," + c + ")" + (letter !== "." ? " " + DATA.legend.squares.find(q => q.letter === letter).name : "");
      grid.appendChild(sq);
    }
  }
  return grid;
}

function drawLegend() {
  const box = el("div", "panel");
  box.id = "legend";
  box.appendChild(el("h2", null, "Squares (G6, G7, G26, G27)"));
  for (const q of DATA.legend.squares) {
    const item = el("div", "legend-item");
    item.dataset.square = q.letter;
    const sw = el("div", "sw", q.letter === "*" ? "\u2605" : q.letter.toUpperCase());
    sw.style.background = q.colour;
    item.appendChild(sw);
    item.appendChild(el("div", null, q.name + ": " + q.effect));
    box.appendChild(item);
  }
  box.appendChild(el("div", "help", DATA.legend.note + " A covered premium square keeps a small corner of its colour."));
  return box;
}

function drawSeats(entry) {
  const t = entry.public;
  const visible = new Map(visiblePrivate(entry));
  const tbl = el("table", "seats");
  tbl.id = "seats";
  const head = el("tr");
  ["seat", "score", "rack", "tiles"].forEach(h => head.appendChild(el("th", null, h)));
  tbl.appendChild(head);
  for (let s = 0; s < DATA.num_players; s++) {
    const row = el("tr");
    row.dataset.seat = s;
    if (entry.kind === "turn" && entry.seat === s) row.classList.add("mover");
    const name = el("td", null, seatName(s) + (viewSeat() === s ? " (you)" : ""));
    name.style.color = SEAT_COLOURS[s % SEAT_COLOURS.length];
    row.appendChild(name);
    const score = el("td", null, String(t.scores[s]));
    score.dataset.col = "score";
    row.appendChild(score);
    const size = el("td", null, String(t.rack_sizes[s]));
    size.dataset.col = "rack_size";
    row.appendChild(size);
    const cell = el("td");
    const mine = visible.get(s);
    if (mine) {
      const rack = el("div", "rack");
      rack.dataset.seat = s;
      mine.rack.forEach(x => rack.appendChild(tileNode(x, x === "*")));
      cell.appendChild(rack);
    } else cell.appendChild(el("span", "hiddenrack", "hidden (G17)"));
    row.appendChild(cell);
    tbl.appendChild(row);
  }
  return tbl;
}

function drawTable(entry) {
  const box = document.getElementById("table");
  box.innerHTML = "";
  box.appendChild(drawHud(entry));
  const wrap = el("div", "boardwrap");
  wrap.appendChild(drawBoard(entry));
  wrap.appendChild(drawLegend());
  box.appendChild(wrap);
  box.appendChild(drawSeats(entry));
}

function privateLine(seat, what, text) {
  const line = el("div", "private", text);
  line.dataset.seat = seat;
  line.dataset.what = what;
  return line;
}

function lightLine(key, on) {
  document.querySelectorAll("#board .sq[data-lines]").forEach(sq => {
    if (sq.dataset.lines.split(" ").includes(key)) sq.classList.toggle("hot", on);
  });
}

function drawPlacement(p, i) {
  const box = el("div", "placement");
  box.dataset.index = i;
  box.dataset.score = p.score;
  box.appendChild(el("div", "head", p.notation + " \u2014 " + p.score + " points"));
  box.appendChild(el("div", "sub", p.where));
  if (p.premiums.length) {
    const names = p.premiums.map(([r, c, q]) => DATA.legend.squares.find(x => x.letter === q).name + " (" + r + "," + c + ")");
    box.appendChild(el("div", "sub", "covers " + names.join(", ") + " (G26: counted now, never again)"));
  }
  const tbl = el("table", "lines");
  const head = el("tr");
  ["line", "reads", "G27: new \u00d7 mult + old", "score"].forEach(h => head.appendChild(el("th", null, h)));
  tbl.appendChild(head);
  p.lines.forEach((l, j) => {
    const row = el("tr");
    row.dataset.line = j;
    for (const [col, text] of [["where", l.where + " (" + l.meld + ")"], ["reads", l.reads], ["arithmetic", l.arithmetic], ["score", String(l.score)]]) {
      const td = el("td", null, text);
      td.dataset.col = col;
      row.appendChild(td);
    }
    row.addEventListener("mouseenter", () => lightLine(i + ":" + j, true));
    row.addEventListener("mouseleave", () => lightLine(i + ":" + j, false));
    tbl.appendChild(row);
  });
  box.appendChild(tbl);
  const sum = p.lines.map(l => l.score).join(" + ");
  box.appendChild(el("div", "sub", "placement score (G28): " + (p.lines.length > 1 ? sum + " = " : "") + p.score));
  return box;
}

function drawTurnSide(entry, side) {
  const play = entry.play;
  const panel = el("div", "panel");
  panel.id = "turn";
  panel.dataset.kind = play.kind;
  panel.appendChild(el("h2", null, "Turn " + play.turn + ": " + seatName(play.seat) + " \u2014 " + (play.kind === "play" ? play.points + " points" : play.kind)));
  play.placements.forEach((p, i) => panel.appendChild(drawPlacement(p, i)));
  const words = el("ul", "words");
  words.id = "turn-words";
  for (const text of play.words) words.appendChild(el("li", null, text));
  panel.appendChild(words);
  for (const [s, item] of visiblePrivate(entry)) {
    if (!item.turn) continue;
    const pt = item.turn;
    panel.appendChild(privateLine(s, "rack_before", "P" + s + "'s rack after the draw: " + (pt.rack_before.join(" ") || "-")));
    panel.appendChild(privateLine(s, "actions", "actions: " + pt.actions.map((a, k) => a + " (" + pt.action_words[k] + ")").join(", ")));
    if (play.kind === "return") panel.appendChild(privateLine(s, "returned", "returned: " + pt.returned_tiles.join(" ")));
    if (pt.refill.length) panel.appendChild(privateLine(s, "refill", "drew at the end of the turn: " + pt.refill.join(" ")));
  }
  side.appendChild(panel);
  if (play.end) side.appendChild(drawEnd(play.end, null));
}

function drawEnd(end, entry) {
  const panel = el("div", "panel");
  const reason = el("h2", null, "The game ends: " + end.words);
  reason.id = entry ? "end-reason" : "end-reason-turn";
  reason.dataset.reason = end.reason;
  panel.appendChild(reason);
  if (!entry) return panel;
  const w = end.winners.map(s => seatName(s)).join(", ");
  const p = el("p", null, "Winner" + (end.winners.length > 1 ? "s (shared)" : "") + ": " + w + " \u2014 " + end.why);
  p.id = "winners";
  panel.appendChild(p);
  const tbl = el("table", "scores");
  tbl.id = "final-table";
  const head = el("tr");
  ["seat", "player", "score", "rack penalty (G30)", "final"].forEach(h => head.appendChild(el("th", null, h)));
  tbl.appendChild(head);
  for (let s = 0; s < DATA.num_players; s++) {
    const row = el("tr");
    row.dataset.seat = s;
    if (end.winners.includes(s)) row.classList.add("winner");
    row.appendChild(el("td", null, "P" + s));
    row.appendChild(el("td", null, DATA.players[s]));
    for (const [col, v] of [["score", end.scores[s]], ["penalty", -end.penalties[s]], ["final", end.final_scores[s]]]) {
      const td = el("td", null, String(v));
      td.dataset.col = col;
      row.appendChild(td);
    }
    tbl.appendChild(row);
  }
  panel.appendChild(tbl);
  for (const [s, item] of visiblePrivate(entry)) panel.appendChild(privateLine(s, "penalty", "P" + s + "'s rack left: " + item.penalty_words));
  return panel;
}

function drawSide(entry) {
  const side = document.getElementById("side");
  side.innerHTML = "";
  if (entry.kind === "turn") drawTurnSide(entry, side);
  else if (entry.kind === "game_over") side.appendChild(drawEnd(entry.end, entry));
  else {
    const panel = el("div", "panel");
    if (entry.kind === "start") {
      panel.appendChild(el("h2", null, "The start"));
      const r = DATA.rules;
      panel.appendChild(el("p", "help", "Every seat holds 7 tiles; the first player (P" + entry.first_player + ") has drawn its turn's tile (8 on its rack). Rules: " + Object.entries(r).map(([k, v]) => k + "=" + v).join(", ") + "."));
    } else panel.appendChild(el("h2", null, "The record ends here: the game is not over"));
    side.appendChild(panel);
  }
}

// ---- the hooks of the shared page (gnome_env/core/viewer_page.py)
function drawEntry(entry) {
  drawTable(entry);
  drawSide(entry);
}

function entryWhere(entry) {
  if (entry.kind === "turn") return "turn " + entry.turn + ", P" + entry.seat + " (" + entry.play.kind + ")";
  if (entry.kind === "start") return "the start";
  if (entry.kind === "game_over") return "game over";
  return "the record's end";
}

function markStatus(status, entry) {
  status.dataset.turn = entry.turn;
  status.dataset.seat = entry.kind === "turn" ? entry.seat : "";
}

function isStop(entry) { return entry.kind !== "turn" || entry.play.placements.length > 0; }

function turnIndex(turn) { return E.findIndex(e => e.kind === "turn" && e.turn === turn); }

function findJump(text) {
  const t = String(text).trim();
  return /^\d+$/.test(t) ? turnIndex(Number(t)) : -1;
}

function jumpMiss(text) {
  const turns = E.filter(e => e.kind === "turn").map(e => e.turn);
  if (!turns.length) return "this record has no turns";
  return "no turn " + String(text).trim() + ": the turns of this record are " + Math.min(...turns) + ".." + Math.max(...turns) + " (write a turn number)";
}

// #turn=T (turn T)
function startFrom(want, start) {
  if (want.has("turn")) {
    const j = turnIndex(Number(want.get("turn")));
    if (j >= 0) start = j;
  }
  return start;
}
"""

PAGE = page(
    css=CSS,
    stop_button=("next-play", "next placement &raquo;", "next turn with a placement (Down arrow)"),
    jump=("turn", 'type="text" placeholder="T"'),
    help_html=HELP,
    script=SCRIPT,
)
