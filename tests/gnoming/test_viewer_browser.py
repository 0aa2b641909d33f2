"""The replay viewer in a real browser: headless Chromium driven by Selenium.

Presses "next" through a whole recorded game and checks what the page shows against the
record (the chosen action at every decision, the round scores at every round end, the
final totals), the keyboard and the jump box, and that a seat's view shows no face-down
card while the omniscient view shows them all. Needs the ``selenium`` package (dev extra)
and Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them when it can);
without them the tests are skipped with the reason.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from gnome_env.gnoming import Game, RulesConfig
from gnome_env.gnoming import viewer as V


def _browser_or_skip():
    try:
        from selenium import webdriver
    except ImportError:
        pytest.skip("selenium is not installed (pip install -e '.[dev]')")
    chrome = next(
        (
            shutil.which(n)
            for n in ("chromium", "chromium-browser", "google-chrome")
            if shutil.which(n)
        ),
        None,
    )
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
        "--window-size=1300,900",
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


def _game(n: int, seed: int) -> Game:
    from agents.gnoming.registry import make_agent

    config = RulesConfig(num_players=n)
    bots = [make_agent("greedy", s, config) for s in range(n)]
    from gnome_env.gnoming.information import SeatView

    game = Game(config, seed)
    while not game.game_over:
        s = game.current_seat
        game.step(int(bots[s].decide(SeatView.from_game(game, s))))
    return game


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    game = _game(3, seed=21)
    path = tmp_path_factory.mktemp("viewer") / "game.html"
    V.write_html(V.viewer_data(game, {"players": ["greedy", "greedy", "greedy"]}), path)
    return game, path


def _status(driver):
    s = driver.find_element("id", "status")
    return (
        s.get_attribute("data-kind"),
        int(s.get_attribute("data-step")),
        int(s.get_attribute("data-index")),
    )


def test_next_through_a_whole_game_matches_the_record(browser, page):
    game, path = page
    browser.get(path.as_uri())
    rounds_seen = 0
    decisions_seen = 0
    next_button = browser.find_element("id", "next")
    while True:
        kind, step, index = _status(browser)
        if kind == "decision":
            assert step == decisions_seen
            chosen = browser.find_element("id", "chosen")
            assert int(chosen.get_attribute("data-action")) == game.actions[step]
            decisions_seen += 1
        elif kind == "round_end":
            result = game.round_results[rounds_seen]
            rows = browser.find_elements("css selector", "#round-table tr[data-seat]")
            assert len(rows) == 3
            for s, row in enumerate(rows):
                cell = {
                    c.get_attribute("data-col"): int(c.text)
                    for c in row.find_elements("css selector", "td[data-col]")
                }
                assert cell["layout"] == result.layout_scores[s]
                assert cell["round"] == result.round_scores[s]
                assert cell["total"] == sum(
                    r.round_scores[s] for r in game.round_results[: rounds_seen + 1]
                )
            # R16: every card of every layout is shown face up at the round's end
            faces = {
                c.get_attribute("data-face")
                for c in browser.find_elements("css selector", ".card[data-pos]")
            }
            assert faces == {"up"}
            rounds_seen += 1
        else:
            assert kind == "game_over"
            cells = browser.find_elements("css selector", "#final-table td[data-col=total]")
            assert [int(c.text) for c in cells] == list(game.totals)
            winners = browser.find_element("id", "winners").text
            assert all(f"P{s}" in winners for s in game.winners())
            break
        next_button.click()
        assert _status(browser)[2] == index + 1
    assert decisions_seen == len(game.actions)
    assert rounds_seen == len(game.round_results) == 3


def test_keyboard_and_jump(browser, page):
    from selenium.webdriver.common.keys import Keys

    game, path = page
    browser.get(path.as_uri())
    body = browser.find_element("tag name", "body")
    body.send_keys(Keys.ARROW_RIGHT)
    body.send_keys(Keys.ARROW_RIGHT)
    assert _status(browser)[:2] == ("decision", 2)
    body.send_keys(Keys.ARROW_LEFT)
    assert _status(browser)[:2] == ("decision", 1)
    body.send_keys(Keys.ARROW_DOWN)  # next round end
    kind, step, _ = _status(browser)
    first_end = next(i for i in range(len(game.actions)) if _round_ends_after(game, i))
    assert (kind, step) == ("round_end", first_end)
    box = browser.find_element("id", "jump")
    box.send_keys("40")
    box.send_keys(Keys.ENTER)
    assert _status(browser)[:2] == ("decision", 40)
    assert (
        int(browser.find_element("id", "chosen").get_attribute("data-action")) == game.actions[40]
    )


def _round_ends_after(game: Game, step: int) -> bool:
    replay = Game(game.config, game.seed)
    for a in game.actions[: step + 1]:
        replay.step(a)
    return (
        len(replay.round_results) == 1
        and step == len(replay.actions) - 1
        and _rounds_before(game, step) == 0
    )


def _rounds_before(game: Game, step: int) -> int:
    replay = Game(game.config, game.seed)
    for a in game.actions[:step]:
        replay.step(a)
    return len(replay.round_results)


def test_seat_view_hides_face_down_cards_and_omniscient_shows_them(browser, page):
    from selenium.webdriver.support.ui import Select

    game, path = page
    step = 30
    replay = Game(game.config, game.seed)
    for a in game.actions[:step]:
        replay.step(a)
    down = {(s, q) for s in range(3) for q in range(9) if not replay.face_up[s][q]}
    assert down  # the position has face-down cards to hide
    browser.get(path.as_uri() + f"#step={step}")
    assert _status(browser)[:2] == ("decision", step)

    def cards():
        out = {}
        for c in browser.find_elements("css selector", ".seat .card[data-pos]"):
            out[int(c.get_attribute("data-seat")), int(c.get_attribute("data-pos"))] = (
                c.get_attribute("data-face"),
                c.text.strip(),
            )
        return out

    omniscient = cards()
    for (s, q), (face, text) in omniscient.items():
        assert face == ("down" if (s, q) in down else "up")
        assert text == V.card_label(replay.layouts[s][q])  # every value, backs included
    Select(browser.find_element("id", "view")).select_by_value("1")
    seat_view = cards()
    assert {k for k, (face, _) in seat_view.items() if face == "down"} == down
    assert all(text == "" for k, (_, text) in seat_view.items() if k in down)
    assert all(seat_view[k] == omniscient[k] for k in seat_view if k not in down)
    draw_pile = browser.find_element("css selector", ".topbar .pile .card")
    assert draw_pile.text.strip() == ""  # the draw pile's order stays hidden too


def test_page_for_one_seat_offers_only_that_seat(browser, tmp_path):
    game = _game(3, seed=22)
    path = tmp_path / "seat2.html"
    V.write_html(V.viewer_data(game, seat=2), path)
    browser.get(path.as_uri())
    options = [
        o.get_attribute("value") for o in browser.find_elements("css selector", "#view option")
    ]
    assert options == ["2"]
    texts = [c.text.strip() for c in browser.find_elements("css selector", ".card[data-face=down]")]
    assert texts and all(t == "" for t in texts)
    assert np.all(
        [
            c.get_attribute("class").count("peek") == 0
            for c in browser.find_elements("css selector", ".card")
        ]
    )


def test_play_advances_by_itself_and_pause_stops_it(browser, page):
    import time

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
