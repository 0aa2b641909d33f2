# ruff: noqa: E501  (the page: HTML, CSS and script in strings)
"""The replay viewer's page, shared by every game: one self-contained HTML file (inline CSS,
an inline script, the game as JSON in a ``<script type="application/json">`` element; no
network) with the same controls for every game.

:func:`page` assembles it from the game's own parts: its CSS, its stop button (``next
round`` in Gnoming A Round, ``next hand`` in Nerts), the label and input of its jump box,
its help line and its script. The shared script holds the data (``DATA``, ``E`` = the
entries), the helpers ``el`` and ``viewSeat``, and the controls: first / prev / next, the
stop button, play / pause at three speeds, the jump box, the view selector (omniscient or
one seat; only that seat on a page written for one seat), the keys (left / right previous
/ next, down / up next / previous stop, space play / pause, Home / End) and the address
(``#entry=N``, ``&view=all`` or a seat, plus the game's own keys). The game's script
defines:

``drawEntry(entry)``
    draw the entry into ``#table`` and ``#side``;
``entryWhere(entry)``
    the status text after ``entry i / N ·``;
``markStatus(status, entry)``
    extra ``data-`` attributes of ``#status`` (``data-index``, ``data-kind`` and
    ``data-step`` are always set);
``isStop(entry)``
    whether the stop button and down / up stop at the entry;
``findJump(text)``, ``jumpMiss(text)``
    the entry index the jump box's text names (-1: none) and the message when none;
``startFrom(want, start)``
    the entry to open for the address's other keys (``want``: its URLSearchParams).

The page's elements carry ids and ``data-`` attributes that the browser tests read
(``tests/gnoming/test_viewer_browser.py``, ``tests/nerts/test_nerts_viewer_browser.py``).
"""

from __future__ import annotations

BASE_CSS = """  body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0;
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
  .panel { background: #173f27; border-radius: 8px; padding: 8px 12px; margin-bottom: 12px; }
  .panel h2 { font-size: 15px; margin: 0 0 6px 0; }
  .help { font-size: 12px; color: #cfe3d4; }
"""

_HEAD = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title>
<style>
"""

_CONTROLS = """</style>
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
  <button id="{stop_id}" title="{stop_title}">{stop_label}</button>
  <button id="play" title="play / pause (Space)">play</button>
  <select id="speed" title="seconds per entry">
    <option value="1500">slow</option><option value="700" selected>normal</option><option value="250">fast</option>
  </select>
  <label>{jump_label} <input id="jump" {jump_input}></label><button id="go">go</button>
  <label>view <select id="view"></select></label>
  <span id="status"></span>
</div>
<main>
  <section id="table"></section>
  <section id="side"></section>
</main>
<p class="help" style="padding: 0 16px 12px 16px">{help_html}</p>
<script type="application/json" id="game-data">__DATA__</script>
<script>
"use strict";
const DATA = JSON.parse(document.getElementById("game-data").textContent);
const E = DATA.entries;
const STOP_ID = "{stop_id}";
let index = 0;
let timer = null;

function el(tag, cls, text) {{
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}}

function viewSeat() {{  // null: omniscient; else the seat whose view is shown
  const v = document.getElementById("view").value;
  return v === "all" ? null : Number(v);
}}
"""

_CONTROLS_SCRIPT = """
function show(i) {
  index = Math.max(0, Math.min(E.length - 1, i));
  const entry = E[index];
  drawEntry(entry);
  const status = document.getElementById("status");
  status.dataset.index = index;
  status.dataset.kind = entry.kind;
  status.dataset.step = entry.step;
  markStatus(status, entry);
  status.textContent = "entry " + (index + 1) + " / " + E.length + " \\u00b7 " + entryWhere(entry);
}

function nextStop(direction) {
  for (let j = index + direction; j >= 0 && j < E.length; j += direction) {
    if (isStop(E[j])) { show(j); return; }
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
  const text = document.getElementById("jump").value;
  const j = findJump(text);
  if (j >= 0) show(j);
  else document.getElementById("status").textContent = jumpMiss(text);
}

function setup() {
  document.getElementById("title").textContent = DATA.title;
  document.getElementById("players").textContent = DATA.players.map((p, s) => "P" + s + ": " + p).join(" \\u00b7 ") + " \\u00b7 game seed " + DATA.seed + (DATA.where ? " \\u00b7 " + DATA.where : "");
  const view = document.getElementById("view");
  if (DATA.seat_only === null) view.appendChild(new Option("omniscient", "all"));
  for (let s = 0; s < DATA.num_players; s++) {
    if (DATA.seat_only === null || DATA.seat_only === s) view.appendChild(new Option("seat " + s + " (" + DATA.short_players[s] + ")", String(s)));
  }
  view.addEventListener("change", () => show(index));
  document.getElementById("first").addEventListener("click", () => show(0));
  document.getElementById("prev").addEventListener("click", () => show(index - 1));
  document.getElementById("next").addEventListener("click", () => show(index + 1));
  document.getElementById(STOP_ID).addEventListener("click", () => nextStop(1));
  document.getElementById("play").addEventListener("click", togglePlay);
  document.getElementById("go").addEventListener("click", jump);
  document.getElementById("jump").addEventListener("keydown", ev => { if (ev.key === "Enter") jump(); ev.stopPropagation(); });
  document.addEventListener("keydown", ev => {
    if (ev.target && ev.target.tagName === "SELECT") return;
    if (ev.key === "ArrowRight") { show(index + 1); ev.preventDefault(); }
    else if (ev.key === "ArrowLeft") { show(index - 1); ev.preventDefault(); }
    else if (ev.key === "ArrowDown") { nextStop(1); ev.preventDefault(); }
    else if (ev.key === "ArrowUp") { nextStop(-1); ev.preventDefault(); }
    else if (ev.key === " ") { togglePlay(); ev.preventDefault(); }
    else if (ev.key === "Home") { show(0); ev.preventDefault(); }
    else if (ev.key === "End") { show(E.length - 1); ev.preventDefault(); }
  });
  window.addEventListener("hashchange", fromAddress);
  fromAddress();
}

// Open at a place given in the address: #entry=N (0-based entry), &view=all|S (a seat's
// view), and the game's own keys (startFrom).
function fromAddress() {
  const view = document.getElementById("view");
  const want = new URLSearchParams(location.hash.slice(1));
  if (want.has("view") && [...view.options].some(o => o.value === want.get("view"))) view.value = want.get("view");
  let start = 0;
  if (want.has("entry")) start = Number(want.get("entry")) || 0;
  show(startFrom(want, start));
}
setup();
</script>
</body>
</html>
"""


def page(
    *,
    css: str,
    stop_button: tuple[str, str, str],
    jump: tuple[str, str],
    help_html: str,
    script: str,
) -> str:
    """The viewer page of one game, with ``__TITLE__`` and ``__DATA__`` left for the game's
    ``render_html`` to fill in.

    ``css``: the game's style rules (after :data:`BASE_CSS`); ``stop_button``: ``(id, label
    HTML, title)`` of the button that goes to the next stop (also keys down / up);
    ``jump``: ``(label, input attributes)`` of the jump box; ``help_html``: the help line
    under the table; ``script``: the game's drawing and the hooks named in this module's
    docstring."""
    stop_id, stop_label, stop_title = stop_button
    jump_label, jump_input = jump
    controls = _CONTROLS.format(
        stop_id=stop_id,
        stop_label=stop_label,
        stop_title=stop_title,
        jump_label=jump_label,
        jump_input=jump_input,
        help_html=help_html,
    )
    return _HEAD + BASE_CSS + css + controls + script + _CONTROLS_SCRIPT
