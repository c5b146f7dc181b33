"""Issue 27's play screens as a person plays them: Debian's Chromium driven by Playwright
with a phone's viewport (390 x 844, touch), against `zilch serve`'s app on loopback.  A
whole game against the computer with a hint and a refused move, to the end, reading the
review; a hot-seat game of two; a companion game with typed and tapped dice; a Yahtzee
solitaire game with a hint.  Each reached in two taps from the start page; no console
errors; every control labelled and the text's contrast at least WCAG AA on every screen.
Screenshots in tests/screens/ (git-ignored) to be looked at."""

import re

import pytest

import dicesolver as ds

from .test_web_browser import LOW_CONTRAST, UNLABELLED, Phone, submit

pytestmark = pytest.mark.slow  # the browser games (Chromium): the slow tier

TARGET = 500  # farkle to 500: its two-player game table is solved in about a second


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    folder = str(tmp_path_factory.getbasetemp() / "tables")
    ds.game("farkle", target=TARGET, tables=folder)
    ds.yahtzee_advise(dice=[1, 1, 1, 1, 1], tables=folder)
    return folder


@pytest.fixture
def phone(browser, server):
    p = Phone(browser, server)
    yield p
    p.close()


def checked(page):
    """Every control labelled, the text's contrast AA, no sideways scroll."""
    assert page.evaluate(UNLABELLED) == []
    assert page.evaluate(LOW_CONTRAST) == []
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def two_taps(phone, mode, shot=None):
    page = phone.go("/")
    page.get_by_role("link", name=re.compile("^Play")).tap()
    if shot:
        page.wait_for_url(re.compile(r"/play$"))
        checked(page)
        phone.shot(shot)
    page.get_by_role("link", name=re.compile(mode)).tap()
    page.wait_for_url(re.compile(r"/play/setup"))
    return page


def phase(page):
    return page.locator("#now").get_attribute("data-phase")


def tap(page, name):
    submit(page, name)


def faces(page):
    """The dice of the roll shown, in order."""
    labels = page.locator(".pick .sr").all_inner_texts()
    return [int(re.search(r"the (\d)", t).group(1)) for t in labels]


def ann_and_bob(phone, mode, target):
    """The setup of a game of two named players to `target`, filled in."""
    page = two_taps(phone, mode)
    page.get_by_label("Player 1").fill("Ann")
    page.get_by_label("Player 2").fill("Bob")
    page.get_by_label("Play to (optional)").fill(str(target))
    return page


def test_a_game_against_the_computer_with_a_hint_to_the_end(phone):
    page = two_taps(phone, "Against the computer", "4-play")
    checked(page)
    page.get_by_label("Rules", exact=True).select_option("farkle")
    page.get_by_label("Play to (optional)").fill(str(TARGET))
    page.get_by_text("Replay a game").tap()
    page.get_by_label("Seed of the dice").fill("11")
    phone.shot("4-play-setup")
    tap(page, "Start the game")
    assert "by the probability of winning" in page.locator(".feed").inner_text()
    hinted = refused = computer_seen = False
    for _ in range(200):
        now = phase(page)
        if now == "over":
            break
        if page.get_by_role("button", name="Next roll").count():
            tap(page, "Next roll")  # (the computer's turn, roll by roll)
            if not computer_seen:
                computer_seen = True
                assert "computer 1 rolled" in page.locator(".feed").inner_text()
                phone.shot("4c-play-computer-roll-by-roll")
            continue
        if now == "roll":
            tap(page, re.compile(r"^Roll \d dic?e"))
            continue
        if not refused:  # bank with no dice set aside: refused with a line, nothing done
            page.locator(".pick input:checked").evaluate_all("l => l.forEach(i => i.click())")
            tap(page, "Bank")
            assert "tap the dice you set aside first" in page.get_by_role("alert").inner_text()
            phone.shot("4b-play-refused")
            refused = True
            continue
        if not hinted:
            tap(page, "Hint")
            assert page.locator(".hint-box tbody tr").count() >= 1
            assert "probability of winning" in page.locator(".hint-box").inner_text()
            checked(page)
            phone.shot("4a-play-hint")
            hinted = True
        if now == "keep":
            scoring = [i for i, f in enumerate(faces(page)) if f in (1, 5)]
            if not scoring:
                tap(page, "Best move")
                continue
            for i in scoring:
                page.locator(".pick").nth(i).tap()
        total = int(page.locator("#now").get_attribute("data-turn-total"))
        tap(page, "Bank" if total >= 250 else "Roll again")
    assert phase(page) == "over" and hinted and refused and computer_seen
    assert page.locator(".review").count() == 1
    assert re.search(r"Your review: \d+ decisions?: ", page.locator(".review h2").inner_text())
    assert "Total loss" in page.locator(".review").inner_text()
    assert page.get_by_role("link", name="Download the decision log").get_attribute("href")
    checked(page)
    phone.shot("4d-play-the-end")


def test_a_hot_seat_game_of_two(phone):
    page = ann_and_bob(phone, "Hot seat", 300)
    checked(page)
    phone.shot("4-hot-seat-setup")
    tap(page, "Start the game")
    assert page.locator(".whose").inner_text() == "Ann's turn"
    seen_bob = keyboard = False
    for _ in range(100):
        if phase(page) == "over":
            break
        scoring = [i for i, f in enumerate(faces(page)) if f in (1, 5)]
        if phase(page) == "keep" and scoring and not keyboard:  # (the keyboard alone)
            keyboard = True
            page.locator(".pick input").nth(scoring[0]).focus()
            page.keyboard.press("Space")
            assert page.locator(".pick input").nth(scoring[0]).is_checked()
            for _ in range(10):
                page.keyboard.press("Tab")
                if page.evaluate("document.activeElement.value") == "roll":
                    break
            with page.expect_navigation():
                page.keyboard.press("Enter")
            assert "aside: turn total" in page.locator(".feed").inner_text()
            continue
        if page.locator(".whose").inner_text() == "Bob's turn" and not seen_bob:
            seen_bob = True
            checked(page)
            phone.shot("4e-hot-seat-bobs-turn")
        tap(page, re.compile(r"^Roll \d dic?e") if phase(page) == "roll" else "Best move")
    assert phase(page) == "over" and seen_bob and keyboard
    heads = page.locator(".review h2").all_inner_texts()
    assert any(h.startswith("Review of Ann") for h in heads)
    assert any(h.startswith("Review of Bob") for h in heads)
    phone.shot("4f-hot-seat-the-end")


def test_a_companion_game_with_typed_dice(phone):
    page = ann_and_bob(phone, "Companion", 1000)
    tap(page, "Start the game")
    page.get_by_label("Ann's roll of 6 dice").fill("1 1 1 5 2 3")  # typed
    tap(page, "Enter the roll")
    for i in range(4):  # the three 1s and the 5
        page.locator(".pick").nth(i).tap()
    tap(page, "Bank")
    assert page.locator(".whose").inner_text() == "Bob's turn"
    tap(page, "Hint")  # advice for whoever asks
    assert "Rolling 6 dice is worth" in page.locator(".hint-box").inner_text()
    checked(page)
    phone.shot("4g-companion")
    page.get_by_label("Bob's roll of 6 dice").fill("5")
    tap(page, "Enter the roll")
    assert "6 dice were rolled, not 1" in page.get_by_role("alert").inner_text()
    for f in (2, 3, 4, 6, 2, 3):  # tapped on the pad
        page.get_by_role("button", name=f"add a {f}").tap()
    tap(page, "Enter the roll")  # (a zilch in the final round: Ann wins)
    assert page.locator(".whose").inner_text() == "Ann wins"
    sheet = page.locator(".sheet-table").inner_text()
    assert "1050" in sheet and "zilch" in sheet
    phone.shot("4h-companion-the-end")


def test_a_yahtzee_solitaire_game_with_a_hint(phone):
    page = two_taps(phone, "Yahtzee solitaire")
    page.get_by_text("Replay a game").tap()
    page.get_by_label("Seed of the dice").fill("5")
    tap(page, "Start the game")
    tap(page, "Hint")
    assert page.locator(".hint-box tbody tr").count() == 10
    checked(page)
    phone.shot("6d-yahtzee-solitaire-hint")
    page.locator(".pick").nth(0).tap()  # keep the first die, roll the others
    tap(page, "Roll the others")
    with page.expect_navigation():
        page.locator(".box-button").first.tap()  # (a box scored: the next turn's roll)
    assert page.locator(".whose").inner_text() == "Turn 2 of 13"
    for _ in range(60):
        if phase(page) == "over":
            break
        tap(page, "Best move")
    assert phase(page) == "over"
    assert page.locator(".whose").inner_text().startswith("Final score")
    assert page.locator(".review h2").inner_text().startswith("Your review: ")
    checked(page)
    phone.shot("6e-yahtzee-solitaire-the-end")
