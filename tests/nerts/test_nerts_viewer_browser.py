"""The Nerts replay viewer in a real browser: headless Chromium driven by Selenium.

Presses "next" through a whole recorded game and checks what the page shows against the
record (every seat's action and result at every step, the hand scores at every hand end,
the final totals and winners), the keyboard, the jump box and play / pause, and that a
seat's view shows no face-down Nerts card and no stock order while the omniscient view
shows them. Needs the ``selenium`` package (dev extra) and Debian's ``chromium`` and
``chromium-driver`` (``.ci/run`` installs them when it can); without them the tests are
skipped with the reason.
"""

from __future__ import annotations

import shutil
import time

import pytest

from agents.nerts.arena import play_game
from agents.nerts.registry import make_nerts_agent
from gnome_env.nerts import NertsConfig
from gnome_env.nerts import viewer as V
from gnome_env.nerts.describe import card_words
from gnome_env.nerts.records import GameLog


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


def _log(n: int, seed: int, **rules) -> GameLog:
    config = NertsConfig(num_players=n, **rules)
    log = GameLog(config, seed)
    play_game(log, [make_nerts_agent("greedy", s, config) for s in range(n)])
    return log


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    log = _log(2, seed=4, max_hands=2, max_steps_per_hand=45)
    path = tmp_path_factory.mktemp("nerts_viewer") / "game.html"
    V.write_html(V.viewer_data(log, {"players": ["greedy", "greedy"]}), path)
    return log, path


def _status(driver):
    s = driver.find_element("id", "status")
    return (
        s.get_attribute("data-kind"),
        int(s.get_attribute("data-hand")),
        int(s.get_attribute("data-step")),
        int(s.get_attribute("data-index")),
    )


def _results(log: GameLog) -> list[tuple[int, int, list[int], list[bool]]]:
    """(hand, step, actions, blocked) of every step, from the engine."""
    out = []
    game = log.fresh_game()
    for h, steps in enumerate(log.hands):
        if h:
            game.next_hand()
        for k, actions in enumerate(steps):
            out.append((h, k, actions, list(game.step(actions).blocked)))
    return out


def test_next_through_a_whole_game_matches_the_record(browser, page):
    log, path = page
    browser.get(path.as_uri())
    steps = iter(_results(log))
    hands_seen = 0
    next_button = browser.find_element("id", "next")
    while True:
        kind, hand, step, index = _status(browser)
        if kind == "step":
            h, k, actions, blocked = next(steps)
            assert (hand, step) == (h, k)
            rows = browser.find_elements("css selector", "#actions tr[data-seat]")
            assert [int(r.find_element("css selector", "td[data-col=action]").get_attribute(
                "data-action")) for r in rows] == actions  # fmt: skip
            shown = [r.find_element("css selector", "td[data-col=result]").text for r in rows]
            assert [t == "blocked" for t in shown] == blocked
        elif kind == "hand_end":
            result = log.game.hand_results[hands_seen]
            rows = browser.find_elements("css selector", "#hand-table tr[data-seat]")
            for s, row in enumerate(rows):
                cell = {
                    c.get_attribute("data-col"): int(c.text)
                    for c in row.find_elements("css selector", "td[data-col]")
                }
                assert cell["hand"] == result.scores[s] == cell["found"] - 2 * cell["nerts"]
                assert cell["total"] == sum(r.scores[s] for r in log.game.hand_results[: hand + 1])
            hands_seen += 1
        else:
            assert kind == "game_over"
            cells = browser.find_elements("css selector", "#final-table td[data-col=total]")
            assert [int(c.text) for c in cells] == list(log.game.totals)
            winners = browser.find_element("id", "winners").text
            assert all(f"P{s}" in winners for s in log.game.winners())
            break
        next_button.click()
        assert _status(browser)[3] == index + 1
    assert next(steps, None) is None  # every step was shown
    assert hands_seen == 2


def test_keyboard_jump_and_address(browser, page):
    from selenium.webdriver.common.keys import Keys

    log, path = page
    browser.get(path.as_uri())
    body = browser.find_element("tag name", "body")
    body.send_keys(Keys.ARROW_RIGHT)
    body.send_keys(Keys.ARROW_RIGHT)
    assert _status(browser)[:3] == ("step", 0, 2)
    body.send_keys(Keys.ARROW_LEFT)
    assert _status(browser)[:3] == ("step", 0, 1)
    body.send_keys(Keys.ARROW_DOWN)  # the end of hand 0
    assert _status(browser)[:3] == ("hand_end", 0, len(log.hands[0]) - 1)
    body.send_keys(Keys.ARROW_DOWN)
    assert _status(browser)[:2] == ("hand_end", 1)
    body.send_keys(Keys.ARROW_UP)
    assert _status(browser)[:2] == ("hand_end", 0)
    box = browser.find_element("id", "jump")
    box.send_keys("1:7")
    box.send_keys(Keys.ENTER)
    assert _status(browser)[:3] == ("step", 1, 7)
    row = browser.find_element("css selector", "#actions tr[data-seat='1'] td[data-col=action]")
    assert int(row.get_attribute("data-action")) == log.hands[1][7][1]
    box.clear()
    box.send_keys("3")  # a step of the hand shown
    box.send_keys(Keys.ENTER)
    assert _status(browser)[:3] == ("step", 1, 3)
    box.clear()
    box.send_keys("999")
    browser.find_element("id", "go").click()
    assert "no step 999: the steps of hand 1 are 0.." in browser.find_element("id", "status").text
    browser.get(path.as_uri() + "#hand=1&step=5&view=0")
    assert _status(browser)[:3] == ("step", 1, 5)
    assert browser.find_element("id", "view").get_attribute("value") == "0"
    browser.get(path.as_uri() + "#hand=0")
    assert _status(browser)[:2] == ("hand_end", 0)


def test_seat_views_hide_face_down_nerts_cards_and_stock_order(browser, page):
    from selenium.webdriver.support.ui import Select

    log, path = page
    step = 20
    game = log.fresh_game()
    for actions in log.hands[0][:step]:
        game.step(actions)
    browser.get(path.as_uri() + f"#hand=0&step={step}&view=all")
    assert _status(browser)[:3] == ("step", 0, step)

    def hidden_lines():
        return {
            (int(e.get_attribute("data-seat")), e.get_attribute("data-what")): e.text
            for e in browser.find_elements("css selector", ".hidden-cards")
        }

    lines = hidden_lines()
    for s in range(2):  # the omniscient view writes what nobody sees, as the engine holds it
        down = [c for c, up in zip(game.nerts[s], game.nerts_face_up[s], strict=True) if not up]
        assert lines[s, "nerts"].endswith(" ".join(card_words(c) for c in down))
        assert lines[s, "stock"].endswith(" ".join(card_words(c) for c in game.stock_top_first(s)))
    for seat in ("0", "1"):
        Select(browser.find_element("id", "view")).select_by_value(seat)
        assert hidden_lines() == {}
        you = browser.find_element("css selector", ".seat.you")
        assert you.get_attribute("data-seat") == seat
        stock = browser.find_elements("css selector", ".card[data-pile=stock][data-face=down]")
        assert stock and all(c.text.strip() == "" for c in stock)
        tops = [
            c.get_attribute("data-card")
            for c in browser.find_elements("css selector", ".card[data-pile=nerts][data-face=up]")
        ]
        assert tops == [card_words(game.nerts[s][-1]) for s in range(2) if game.nerts[s]]


def test_a_page_for_one_seat_offers_only_that_seat(browser, tmp_path):
    log = _log(3, seed=6, max_hands=1, max_steps_per_hand=20)
    path = V.write_html(V.viewer_data(log, seat=2), tmp_path / "seat2.html")
    browser.get(path.as_uri())
    options = [
        o.get_attribute("value") for o in browser.find_elements("css selector", "#view option")
    ]
    assert options == ["2"]
    assert browser.find_elements("css selector", ".hidden-cards") == []
    assert browser.find_element("css selector", ".seat.you").get_attribute("data-seat") == "2"


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
    stopped = _status(browser)[3]
    assert stopped >= 2  # it moved on by itself
    time.sleep(0.8)
    assert _status(browser)[3] == stopped  # and stays put once paused
