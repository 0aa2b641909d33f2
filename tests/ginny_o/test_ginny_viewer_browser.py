"""The Ginny-O replay viewer in a real browser: headless Chromium driven by Selenium.

Presses "next" through a whole recorded game and checks what the page shows against the
engine replaying the record (every seat's score, the mover's rack size, the tiles on the
board and the turn's new ones, each placement's score, the final table), the rules' worked
examples (the lines a placement scored, lit on the board, with their scores; the premium
squares where the rules' G6 layout puts them), the keyboard, the turn box, the address and
play / pause, and that a seat's view shows only that seat's rack and moves while the
omniscient view shows every rack as the engine holds it. Needs the ``selenium`` package (dev
extra) and Debian's ``chromium`` and ``chromium-driver``; without them the tests are skipped
with the reason.
"""

from __future__ import annotations

import shutil
import time

import pytest

from agents.ginny_o.registry import make_ginny_agent
from gnome_env.ginny_o import GinnyConfig
from gnome_env.ginny_o import viewer as V
from gnome_env.ginny_o.cards import format_kind
from gnome_env.ginny_o.information import GinnyView
from gnome_env.ginny_o.notation import parse_placement
from gnome_env.ginny_o.records import GameLog

WORKED = {
    "racks": {0: "4C 5C 6C 7C 8C AD AH", 1: "AC 2C 3C 9C 9H 9D QD"},
    "draws": "AS 6H 6D 6S TD QH 7H * JD 2S 3H QC QS 4S 5S 8S KS 2D 3D 4D 5D 7D 8D",
}
WORKED_PLAYS = ["4C 5C 6C 7C 8C @ 3,7 down", "AC 2C 3C @ 0,7 down", "AD AH AS @ 0,4 across",
                "9C 9H 9D @ 8,7 across"]  # fmt: skip


def _browser_or_skip():
    try:
        from selenium import webdriver
    except ImportError:
        pytest.skip("selenium is not installed (pip install -e '.[dev]')")
    names = ("chromium", "chromium-browser", "google-chrome")
    chrome = next((shutil.which(n) for n in names if shutil.which(n)), None)
    driver_exe = shutil.which("chromedriver")
    if chrome is None or driver_exe is None:
        pytest.skip(
            "headless Chromium not available: apt-get install chromium chromium-driver "
            f"(found browser={chrome}, chromedriver={driver_exe})"
        )
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chrome
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
    ):
        options.add_argument(arg)
    try:
        return webdriver.Chrome(service=Service(driver_exe), options=options)
    except Exception as err:  # a broken browser install: say so, do not pass
        pytest.skip(f"headless Chromium could not start: {type(err).__name__}: {str(err)[:200]}")


@pytest.fixture(scope="module")
def browser():
    driver = _browser_or_skip()
    yield driver
    driver.quit()


def _bot_log(n: int, seed: int, **rules) -> GameLog:
    config = GinnyConfig(num_players=n, **rules)
    log = GameLog(config, seed)
    agents = [make_ginny_agent(("greedy", "random")[s % 2], s, config) for s in range(n)]
    while not log.game.game_over:
        seat = log.game.current
        log.step(agents[seat].decide(GinnyView.from_game(log.game, seat)))
    return log


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    log = _bot_log(2, seed=4, max_turns=22)
    path = tmp_path_factory.mktemp("ginny_viewer") / "game.html"
    V.write_html(V.viewer_data(log, {"players": ["greedy", "random"]}), path)
    return log, path


@pytest.fixture(scope="module")
def worked(tmp_path_factory):
    log = GameLog(GinnyConfig(num_players=2, first_player=0), 0, stacked=WORKED)
    for text in WORKED_PLAYS:
        wanted = tuple(sorted(parse_placement(text, log.game.board)))
        (placement,) = [p for p in log.game.legal_placements() if p.tiles == wanted]
        for action in log.game.placement_actions(placement):
            log.step(action)
    path = tmp_path_factory.mktemp("ginny_worked") / "worked.html"
    V.write_html(V.viewer_data(log), path)
    return path


def _status(driver):
    s = driver.find_element("id", "status")
    return (
        s.get_attribute("data-kind"),
        int(s.get_attribute("data-turn")),
        int(s.get_attribute("data-index")),
    )


def _cells(driver, selector: str) -> list[int]:
    return [int(c.text) for c in driver.find_elements("css selector", selector)]


def _racks(driver) -> dict[int, list[str]]:
    return {
        int(r.get_attribute("data-seat")): [
            t.get_attribute("data-card") for t in r.find_elements("css selector", ".tile")
        ]
        for r in driver.find_elements("css selector", ".rack")
    }


def test_next_through_a_whole_game_matches_the_engine(browser, page):
    log, path = page
    browser.get(path.as_uri())
    game = log.fresh_game()
    assert _status(browser)[0] == "start"
    assert _racks(browser) == {s: [format_kind(t) for t in game.racks[s]] for s in range(2)}
    turns = iter(log.turn_actions)
    next_button = browser.find_element("id", "next")
    seen = 0
    while True:
        next_button.click()
        kind, turn, _ = _status(browser)
        if kind == "game_over":
            break
        assert kind == "turn" and turn == game.turn
        seat, actions = next(turns)
        before, score = game.board.count, game.scores[seat]
        for a in actions:
            game.step(a)
        assert _cells(browser, "#seats td[data-col=score]") == game.scores
        row = f"#seats tr[data-seat='{seat}'] td[data-col=rack_size]"
        assert int(browser.find_element("css selector", row).text) == len(game.racks[seat])
        assert len(browser.find_elements("css selector", "#board .tile")) == game.board.count
        fresh = browser.find_elements("css selector", "#board .tile[data-new='1']")
        assert len(fresh) == game.board.count - before
        shown = [
            int(p.get_attribute("data-score"))
            for p in browser.find_elements("css selector", ".placement")
        ]
        assert sum(shown) == game.scores[seat] - score and len(shown) == (game.board.count > before)
        rack = [format_kind(t) for t in game.racks[seat]]
        assert _racks(browser)[seat] == rack  # the omniscient view: the mover's rack as it is
        seen += 1
    assert next(turns, None) is None and seen == len(log.turn_actions)
    assert _cells(browser, "#final-table td[data-col=score]") == game.scores
    assert _cells(browser, "#final-table td[data-col=penalty]") == [-p for p in game.penalties]
    assert _cells(browser, "#final-table td[data-col=final]") == game.final_scores
    winners = browser.find_element("id", "winners").text
    assert all(f"P{s}" in winners for s in game.winners())
    reason = browser.find_element("id", "end-reason").get_attribute("data-reason")
    assert reason == game.end_reason


def test_the_worked_examples_show_their_lines_on_the_board(browser, worked):
    """Play 2 of the rules' table scores 44 in one line, column 7 from AC to 8C; play 4
    scores 36 (row 8) + 45 (column 7, AC..9C) = 81 (G25, G28)."""
    browser.get(worked.as_uri() + "#turn=1")
    assert _status(browser)[:2] == ("turn", 1)
    assert _cells(browser, "table.lines td[data-col=score]") == [44]

    def cells(selector):
        return sorted(
            (int(q.get_attribute("data-r")), int(q.get_attribute("data-c")))
            for q in browser.find_elements("css selector", selector)
        )

    assert cells("#board .sq.scored") == [(r, 7) for r in range(8)]
    new = browser.find_elements("css selector", "#board .tile[data-new='1']")
    assert sorted(t.get_attribute("data-card") for t in new) == ["2C", "3C", "AC"]
    browser.get(worked.as_uri() + "#turn=3")
    assert _cells(browser, "table.lines td[data-col=score]") == [36, 45]
    assert int(browser.find_element("css selector", ".placement").get_attribute("data-score")) == 81
    assert cells("#board .sq.scored") == sorted({(r, 7) for r in range(9)} | {(8, 8), (8, 9)})
    reds = [(1, 7), (3, 3), (3, 11), (7, 1), (7, 13), (11, 3), (11, 11), (13, 7)]
    assert cells("#board .sq[data-square='R']") == sorted(reds)  # G6
    legend = browser.find_elements("css selector", "#legend .legend-item")
    assert sorted(i.get_attribute("data-square") for i in legend) == ["*", "B", "R", "g", "y"]
    blue = browser.find_element("css selector", "#legend .legend-item[data-square='B']").text
    assert "x3" in blue and "meld" in blue


def test_keyboard_turn_box_and_address(browser, page):
    from selenium.webdriver.common.keys import Keys

    log, path = page
    browser.get(path.as_uri())
    body = browser.find_element("tag name", "body")
    body.send_keys(Keys.ARROW_RIGHT)
    body.send_keys(Keys.ARROW_RIGHT)
    assert _status(browser)[:2] == ("turn", 1)
    body.send_keys(Keys.ARROW_LEFT)
    assert _status(browser)[:2] == ("turn", 0)
    placed = [i for i, t in enumerate(log.turns) if t.placements]
    body.send_keys(Keys.ARROW_DOWN)  # the next turn with a placement
    assert _status(browser)[:2] == ("turn", placed[0])
    body.send_keys(Keys.ARROW_DOWN)
    assert _status(browser)[:2] == ("turn", placed[1])
    body.send_keys(Keys.ARROW_UP)
    assert _status(browser)[:2] == ("turn", placed[0])
    body.send_keys(Keys.END)
    assert _status(browser)[0] == "game_over"
    body.send_keys(Keys.HOME)
    assert _status(browser)[0] == "start"
    box = browser.find_element("id", "jump")
    box.send_keys("7")
    box.send_keys(Keys.ENTER)
    assert _status(browser)[:2] == ("turn", 7)
    box.clear()
    box.send_keys("999")
    browser.find_element("id", "go").click()
    assert (
        "no turn 999: the turns of this record are 0.." in browser.find_element("id", "status").text
    )
    browser.get(path.as_uri() + "#turn=5&view=1")
    assert _status(browser)[:2] == ("turn", 5)
    assert browser.find_element("id", "view").get_attribute("value") == "1"


def test_a_seat_view_shows_only_that_seats_rack_and_moves(browser, page):
    from selenium.webdriver.support.ui import Select

    log, path = page
    t = next(i for i, turn in enumerate(log.turns) if turn.seat == 0 and turn.kind == "return")
    browser.get(path.as_uri() + f"#turn={t}&view=all")
    mover = log.turns[t]
    assert sorted(_racks(browser)) == [0, 1]
    assert _racks(browser)[0] == [format_kind(k) for k in mover.rack_after]
    private = browser.find_elements("css selector", ".private")
    assert {p.get_attribute("data-seat") for p in private} == {"0"}
    returned = browser.find_element("css selector", ".private[data-what=returned]").text
    assert returned.endswith(" ".join(format_kind(k) for k in mover.returned_tiles))
    Select(browser.find_element("id", "view")).select_by_value("1")
    assert sorted(_racks(browser)) == [1]  # P1 sees its own rack only
    assert browser.find_elements("css selector", ".private") == []  # not P0's moves
    hidden = browser.find_element("css selector", "#seats tr[data-seat='0']").text
    assert "hidden" in hidden and format_kind(mover.rack_after[0]) not in hidden.split()
    words = browser.find_element("id", "turn-words").text
    assert f"returned {mover.returned} tile" in words  # how many, never which (G17)
    Select(browser.find_element("id", "view")).select_by_value("0")
    assert sorted(_racks(browser)) == [0] and browser.find_elements("css selector", ".private")


def test_a_page_for_one_seat_offers_only_that_seat(browser, tmp_path):
    log = _bot_log(3, seed=6, max_turns=9)
    path = V.write_html(V.viewer_data(log, seat=2), tmp_path / "seat2.html")
    t = next(i for i, turn in enumerate(log.turns) if turn.seat == 2)
    browser.get(path.as_uri() + f"#turn={t}")
    options = [
        o.get_attribute("value") for o in browser.find_elements("css selector", "#view option")
    ]
    assert options == ["2"]
    assert sorted(_racks(browser)) == [2]
    private = browser.find_elements("css selector", ".private")
    assert private and {p.get_attribute("data-seat") for p in private} == {"2"}  # its own move


def test_play_advances_by_itself_and_pause_stops_it(browser, page):
    _, path = page
    browser.get(path.as_uri())
    browser.find_element("id", "speed").send_keys("fast")  # 250 ms per entry
    play = browser.find_element("id", "play")
    play.click()
    assert play.text == "pause"
    time.sleep(1.6)
    play.click()
    assert play.text == "play"
    stopped = _status(browser)[2]
    assert stopped >= 2  # it moved on by itself
    time.sleep(0.8)
    assert _status(browser)[2] == stopped  # and stays put once paused
