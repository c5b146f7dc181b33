"""Issue 27, tested as a person uses it: Debian's Chromium driven by Playwright, a phone's
viewport (390 x 844, touch), against `zilch serve`'s app on loopback.  Ask should I roll,
tap dice for which dice, open and print-preview the card, review an uploaded log, Yahtzee
advice (its table built as a background job, the progress bar shown); the three query
screens with JavaScript off; no console errors; every control labelled, keyboard
operable, text contrast at least WCAG AA (computed from the styles).  Every screen is
written to the session's temporary folder, or to $DICESOLVER_SCREENS to be kept and
looked at."""

import os
import re
import shutil
from pathlib import Path

import pytest

import dicesolver as ds

from .webserver import CHROMIUM, running, snap


def screens() -> Path:
    """The screenshots' folder (conftest: the session's own, or $DICESOLVER_SCREENS)."""
    got = Path(os.environ["DICESOLVER_SCREENS"])
    got.mkdir(parents=True, exist_ok=True)
    return got


PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
pytestmark = pytest.mark.slow  # the browser tests (Chromium): the slow tier

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if shutil.which(CHROMIUM) is None:
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install -y chromium)", allow_module_level=True)


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    return str(tmp_path_factory.getbasetemp() / "tables")


# a page that refuses its question answers 400 (404: no such thing), as the API (issue 36);
# the browser logs that status as a console error, which is the page's refusal, not an error
REFUSAL = re.compile(r"Failed to load resource: the server responded with a status of 40[04] ")


class Phone:
    """A page in a phone's context; the console's errors are collected (less the statuses
    of pages that refuse their question)."""

    def __init__(self, browser, base, javascript=True):
        self.context = browser.new_context(**PHONE, java_script_enabled=javascript)
        self.page = self.context.new_page()
        self.base = base
        self.errors = []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.refused = []  # (the documents answered 400 or 404)
        self.page.on(
            "response",
            lambda r: (
                r.request.resource_type == "document"
                and r.status in (400, 404)
                and self.refused.append(r.url)
            ),
        )

    def go(self, path):
        self.page.goto(self.base + path)
        return self.page

    def shot(self, name, full=True):
        if full:
            snap(self.page, str(screens() / f"{name}.png"))
        else:
            self.page.screenshot(path=str(screens() / f"{name}.png"))

    def close(self):
        self.context.close()
        errors, refused = [], len(self.refused)
        for e in self.errors:
            if refused and REFUSAL.match(e):
                refused -= 1
            else:
                errors.append(e)
        assert errors == [], errors


@pytest.fixture
def phone(browser, server):
    p = Phone(browser, server)
    yield p
    p.close()


def tap_tile(page, name):
    page.get_by_role("link", name=re.compile(name)).tap()


def step(page, field, times):
    for _ in range(times):
        page.get_by_role("button", name=f"{field}: more").tap()


def submit(page, name, tap=True):
    """Tap (or click) a form's button and wait for the page it posts to."""
    with page.expect_navigation():
        button = page.get_by_role("button", name=name)
        button.tap() if tap else button.click()


def tap_faces(page, faces):
    for f in faces:
        page.get_by_role("button", name=f"add a {f}").tap()


def test_should_i_roll(phone, tables):
    page = phone.go("/")
    phone.shot("0-start")
    tap_tile(page, "Should I roll")
    page.get_by_label("Rules", exact=True).select_option("farkle")
    page.locator("label.choice", has_text="3").tap()
    step(page, "Turn total so far", 8)
    assert page.get_by_label("Turn total so far", exact=True).input_value() == "400"
    submit(page, "Should I roll?")
    a = ds.advise("farkle", dice=3, turn=400, tables=tables)
    verdict = page.locator("#verdict")
    assert verdict.inner_text() == a.action.upper() == "ROLL"
    values = page.locator(".result .values").inner_text()
    assert f"{a.values.roll:,.2f}" in values and f"{a.margin:,.2f}" in values
    phone.shot("1-should-i-roll")


def test_should_i_roll_by_the_chance_to_win(phone, tables):
    page = phone.go("/roll")
    page.get_by_label("Rules", exact=True).select_option("zilch-online")
    page.locator("label.choice", has_text="2").tap()
    step(page, "Turn total so far", 5)
    page.get_by_text("Scores (optional)").tap()
    page.get_by_label("Your score before this turn").fill("4900")
    page.get_by_label("Opponents' scores").fill("4950, 5000, 5100")
    submit(page, "Should I roll?")
    a = ds.advise(
        "zilch-online", dice=2, turn=250, score=4900, opponents=[4950, 5000, 5100], tables=tables
    )
    assert page.locator("#verdict").inner_text() == a.action.upper()
    assert f"{100 * a.p_win.roll:.2f}\u202f%" in page.locator(".result").inner_text()
    phone.shot("1b-should-i-roll-p-win")


def test_which_dice(phone, tables):
    page = phone.go("/")
    tap_tile(page, "Which dice")
    page.get_by_label("Rules", exact=True).select_option("zilch")
    tap_faces(page, [1, 5, 2, 2, 6])
    page.get_by_role("button", name="take back the 6").tap()  # a mistap taken back
    assert page.get_by_label("The dice you rolled").input_value() == "1,5,2,2"
    step(page, "Turn total before this roll", 11)
    submit(page, "Rank my choices")
    a = ds.advise("zilch", dice=4, turn=550, roll=[1, 5, 2, 2], tables=tables)
    rows = page.locator("table.options tbody tr")
    assert rows.count() == len(a.options)
    assert "best" in rows.first.get_attribute("class")
    assert page.locator(".next strong").inner_text() == a.options[0].then.upper()
    phone.shot("2-which-dice")


def test_which_dice_by_the_chance_to_win(phone, tables):
    """With the scores a roll's set-asides rank by P(win), as advise --roll ranks them."""
    page = phone.go("/dice")
    page.get_by_label("Rules", exact=True).select_option("farkle")
    tap_faces(page, [1, 1, 5, 3, 4, 6])
    page.get_by_text("Scores (optional)").tap()
    page.get_by_label("Your score before this turn").fill("9000")
    page.get_by_label("Opponents' scores").fill("10200")
    submit(page, "Rank my choices")
    phone.shot("2c-which-dice-p-win")
    a = ds.advise("farkle", roll=[1, 1, 5, 3, 4, 6], score=9000, opponents=[10200], tables=tables)
    assert a.objective == "P(win)" and a.situation == "last turn"
    rows = page.locator("table.options tbody tr")
    assert rows.count() == len(a.options)
    assert f"{100 * a.options[0].value:.2f}\u202f%" in rows.first.inner_text()
    assert "probability of winning (last turn)" in page.locator(".result").inner_text()


def test_the_card_and_its_print_preview(phone, tables, tmp_path):
    page = phone.go("/")
    tap_tile(page, "Strategy card")
    page.get_by_label("Rules", exact=True).select_option("zilch")
    submit(page, "Show the card")
    a = ds.strategy("zilch", tables=tables)
    rows = page.locator(".card-table tbody tr").all_inner_texts()
    assert len(rows) == len(a.bank_thresholds)
    for row, (n, v) in zip(rows, a.bank_thresholds.items()):
        assert row.split()[0] == str(n)
        assert (f"{v} or more" if v is not None else "never") in row
    phone.shot("3-strategy-card")
    page.emulate_media(media="print")
    assert not page.locator("header.top").is_visible()
    assert not page.locator("form.ask").is_visible()
    assert page.locator(".card-table").is_visible()
    phone.shot("3b-strategy-card-print")
    pdf = page.pdf(path=str(tmp_path / "card.pdf"), format="A4")
    assert len(re.findall(rb"/Type\s*/Page[^s]", pdf)) == 1  # one page to keep at the table


def test_review_an_uploaded_log(phone, tables, tmp_path):
    log = tmp_path / "my-turns.jsonl"
    ds.simulate("farkle", policy="optimal", turns=30, seed=5, log=str(log), tables=tables)
    lines = log.read_text().splitlines()
    lines[0] = lines[0].replace('"then": "roll"', '"then": "bank"')  # a mistake of ours
    log.write_text("\n".join(lines) + "\n")
    want = ds.review(str(log), rules="farkle", tables=tables)
    page = phone.go("/")
    tap_tile(page, "Review a game")
    page.get_by_label("Decision log").set_input_files(str(log))
    submit(page, "Review")
    head = page.locator("#review-h").inner_text()
    assert head.startswith(f"{want.decisions} decisions: {want.errors} error")
    assert f"{want.blunders} of them" in head
    assert page.locator("ol.costliest li").count() == len(want.costliest)
    # issue 25 point 7: a loss is said as one, positive (as zilch review prints it)
    first = page.locator("ol.costliest li").first.inner_text()
    assert "loss " in first and "−" not in first and "-" not in first.split("loss ")[1]
    phone.shot("5-review")


def test_yahtzee_advice(phone, tables):
    ds.yahtzee_advise(dice=[1, 1, 1, 1, 1], tables=tables)  # (the table stored)
    page = phone.go("/")
    tap_tile(page, "Yahtzee")
    tap_faces(page, [2, 2, 2, 5, 5])
    page.locator("label.choice", has_text="0 (score)").tap()
    page.get_by_label("ones", exact=True).check()
    submit(page, "What now?")
    a = ds.yahtzee_advise(dice=[2, 2, 2, 5, 5], rolls_left=0, filled=["ones"], tables=tables)
    best = a.options[0]["box"].replace("_", " ")
    assert page.locator(".next strong").inner_text() == best
    assert "best" in page.locator("table.options tbody tr").first.get_attribute("class")
    phone.shot("6-yahtzee")


def test_a_missing_table_is_built_with_a_progress_bar(browser, tmp_path):
    """A fresh tables folder: the Yahtzee table is offered as a build, its progress bar
    moves, and the answer follows."""
    with running(str(tmp_path / "fresh")) as url:
        p = Phone(browser, url)
        page = p.go("/yahtzee")
        tap_faces(page, [1, 2, 3, 4, 6])
        submit(page, "What now?")
        assert "not built yet" in page.locator(".offer").inner_text()
        p.shot("6b-yahtzee-needs-a-table")
        submit(page, "Build it now")
        page.wait_for_url(re.compile(r"/jobs/"))
        page.locator("[data-job-count]").filter(has_text=re.compile(r"\d+ of \d+")).wait_for()
        p.shot("6c-building")
        page.get_by_role("link", name="Show the answer").wait_for(timeout=300_000)
        assert page.locator("progress").get_attribute("value") == page.locator(
            "progress"
        ).get_attribute("max")
        with page.expect_navigation():
            page.get_by_role("link", name="Show the answer").tap()
        assert page.locator("table.options tbody tr").count() > 0
        p.close()


@pytest.fixture
def no_js(browser, server):
    p = Phone(browser, server, javascript=False)
    yield p
    p.close()


def test_the_query_screens_work_with_javascript_off(no_js, tables):
    page = no_js.go("/roll")
    assert page.get_by_role("button", name="Turn total so far: more").is_hidden()
    page.locator("label.choice", has_text="3").click()
    page.get_by_label("Turn total so far", exact=True).fill("400")
    submit(page, "Should I roll?", tap=False)
    assert page.locator("#verdict").inner_text() == "ROLL"
    page = no_js.go("/dice")
    page.get_by_label("Rules", exact=True).select_option("zilch")
    page.get_by_label("The dice you rolled").fill("1 5 2 2")
    page.get_by_label("Turn total before this roll", exact=True).fill("550")
    submit(page, "Rank my choices", tap=False)
    assert page.locator("table.options tbody tr").count() == 1
    no_js.shot("2b-which-dice-no-javascript")
    # (the table built first: another test, maybe on another worker, may not have built it)
    a = ds.yahtzee_advise(dice=[2, 2, 2, 5, 5], tables=tables)
    page = no_js.go("/yahtzee")
    page.get_by_label("Your five dice").fill("22255")
    submit(page, "What now?", tap=False)
    assert page.locator("table.options tbody tr").count() == min(12, len(a.options)), (
        page.inner_text("main")
    )


# --- accessibility -----------------------------------------------------------------------
UNLABELLED = """() => [...document.querySelectorAll('input, select, textarea, button')]
  .filter(e => e.type !== 'hidden' && e.getClientRects().length)
  .filter(e => !((e.labels && e.labels.length && [...e.labels].some(l => l.textContent.trim()))
      || e.getAttribute('aria-label') || e.getAttribute('aria-labelledby')
      || (e.tagName === 'BUTTON' && e.textContent.trim())))
  .map(e => e.outerHTML.slice(0, 80))"""

LOW_CONTRAST = """() => {
  const parse = c => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
    const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
    return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1}; };
  const lum = c => { const f = v => { v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
  const back = el => { const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; } }
    let out = {r: 255, g: 255, b: 255};
    for (const c of layers.reverse()) out = {r: c.r * c.a + out.r * (1 - c.a),
      g: c.g * c.a + out.g * (1 - c.a), b: c.b * c.a + out.b * (1 - c.a)};
    return out; };
  const bad = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const t = walk.currentNode, el = t.parentElement;
    if (!t.textContent.trim() || !el.getClientRects().length) continue;
    const st = getComputedStyle(el);
    if (st.visibility === 'hidden' || st.display === 'none' || el.closest('.sr')) continue;
    const fg = parse(st.color), bg = back(el);
    const l1 = lum(fg), l2 = lum(bg);
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    const size = parseFloat(st.fontSize), bold = parseInt(st.fontWeight, 10) >= 700;
    const large = size >= 24 || (bold && size >= 18.66);
    if (ratio < (large ? 3 : 4.5))
      bad.push(`${t.textContent.trim().slice(0, 30)}: ${ratio.toFixed(2)} (${st.color})`);
  }
  return bad; }"""

WIDER = """() => [...document.querySelectorAll('main table, main pre, main .values')]
  .filter(e => e.getBoundingClientRect().right > e.parentElement.getBoundingClientRect().right
      - parseFloat(getComputedStyle(e.parentElement).paddingRight) + 1)
  .map(e => e.outerHTML.slice(0, 60))"""

SCREEN_PAGES = [
    "/",
    "/roll?ask=1&rules=farkle&dice=3&turn=400",
    "/roll?ask=1&rules=farkle&dice=1&turn=2000",
    "/roll?ask=1&rules=farkle&dice=9",
    "/dice?ask=1&rules=zilch&roll=1,5,2,2&turn=550",
    "/dice?ask=1&rules=farkle&roll=2,3,4,6",
    "/dice?ask=1&rules=farkle&roll=1,1,5,3,4,6",
    "/card?rules=zilch",
    "/review",
    "/yahtzee?ask=1&dice=1,2,3,4,6",
    "/rules",
]


@pytest.mark.parametrize("path", SCREEN_PAGES)
def test_every_control_labelled_and_text_contrast_aa(phone, tables, path):
    ds.yahtzee_advise(dice=[1, 1, 1, 1, 1], tables=tables)  # (the table stored)
    page = phone.go(path)
    assert page.evaluate(UNLABELLED) == []
    assert page.evaluate(LOW_CONTRAST) == []
    # no sideways scroll on the phone, no table wider than its box
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert page.evaluate(WIDER) == []
    if "card" in path:
        page.emulate_media(media="print")
        assert page.evaluate(LOW_CONTRAST) == []


def test_keyboard_alone_asks_should_i_roll(phone):
    """Tab through the form (rules, a die tile, the stepper), arrows and Enter: an answer."""
    page = phone.go("/roll")
    seen = []
    for _ in range(40):
        page.keyboard.press("Tab")
        seen.append(page.evaluate("document.activeElement.name || document.activeElement.id"))
        if seen[-1] == "dice":
            page.keyboard.press("ArrowLeft")  # six dice -> five
        if seen[-1] == "turn":
            page.keyboard.type("100")  # (after the 0 shown: 0100)
        if page.evaluate("document.activeElement.type") == "submit":
            break
    assert {"rules", "dice", "turn"} <= set(seen)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    phone.shot("1c-keyboard")
    assert "5 dice to roll, turn total" in page.locator(".result .by").inner_text()


def test_keyboard_taps_dice_on_the_pad(phone):
    page = phone.go("/dice")
    page.get_by_role("button", name="add a 5").focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Space")
    assert page.get_by_label("The dice you rolled").input_value() == "5,5"
