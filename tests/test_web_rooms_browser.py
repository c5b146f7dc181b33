"""Issue 38's rooms as a game night plays them: Debian's Chromium under Playwright, three
browser contexts as three phones (390 x 844, touch) against a real `zilch serve` process.
The host opens a room from the play page and shows its code and QR code; two phones join
by the code; the host starts; a game of three people and one computer to the end, with
hints (on the asking phone only), one phone reloading mid-game and the server killed
(kill -9) and restarted mid-game: every phone back at its seat, following live.  Then a
companion room with a typed roll corrected, and leaving asked first.  Screenshots in the
test's tmp folder (and tests/screens/), looked at."""

import os
import re
import shutil
import signal
import time
from pathlib import Path

import pytest

import dicesolver as ds

from .test_web_browser import PHONE, screens
from .webserver import ARGS, CHROMIUM, free_port, server_process, snap, zilch_command

pytestmark = pytest.mark.slow  # the browser games (Chromium): the slow tier
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if shutil.which(CHROMIUM) is None:
    pytest.skip(f"no Chromium at {CHROMIUM}", allow_module_level=True)

TARGET = 500
# a page's live stream cut by the server's kill, or a page left mid-load: not the page's error
EXPECTED = re.compile(
    r"ERR_CONNECTION_REFUSED|ERR_INCOMPLETE_CHUNKED|ERR_EMPTY_RESPONSE|EventSource|net::ERR_ABORTED"
)


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    folder = str(tmp_path_factory.getbasetemp() / "tables")
    ds.game("farkle", target=TARGET, tables=folder)
    return folder


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


class Server:
    """`zilch serve` over the tables and a state folder, restartable on its port."""

    def __init__(self, tables, state):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.cmd = [*zilch_command(), "serve", "--port", str(self.port), "--tables", tables]
        self.cmd += ["--state", state]
        self.env = {"DICESOLVER_ROOM_PACE": "0.15"}
        self.ctx = None

    def start(self):
        self.ctx = server_process(self.cmd, self.url, self.env)
        self.served = self.ctx.__enter__()

    def kill(self):
        os.kill(self.served.proc.pid, signal.SIGKILL)
        self.served.proc.wait(10)
        self.ctx.__exit__(None, None, None)

    def stop(self):
        if self.served.proc.poll() is None:
            self.ctx.__exit__(None, None, None)


@pytest.fixture
def server(tables, tmp_path):
    s = Server(tables, str(tmp_path / "state"))
    s.start()
    yield s
    s.stop()


class Phone:
    def __init__(self, browser, base, name, shots):
        self.context = browser.new_context(**PHONE)
        self.page = self.context.new_page()
        self.base, self.name, self.shots = base, name, shots
        self.errors = []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def go(self, path):
        self.page.goto(self.base + path)
        return self.page

    def shot(self, label):
        path = self.shots / f"room-{label}.png"
        snap(self.page, str(path))
        shutil.copy(path, screens() / path.name)

    def close(self):
        self.context.close()
        errors = [e for e in self.errors if not EXPECTED.search(e)]
        assert errors == [], errors


def submit(page, name):
    with page.expect_navigation():
        page.get_by_role("button", name=name).tap()


def seated(page, name):
    """The host's lobby once it shows `name` seated: it reloads itself on each room event
    (a reload by the test as well would race with it)."""
    sync_api.expect(page.locator(".board")).to_contain_text(name, timeout=10_000)


def reload(page):
    """Reload a room page, which also reloads itself on each room event: a reload cut
    short by its own is tried again."""
    for _ in range(5):
        try:
            page.reload()
            return
        except sync_api.Error:
            time.sleep(0.2)
    page.reload()


def banner(page):
    return page.locator("#now .whose").inner_text()


def step(phones, hinted):
    """The phone whose turn it is makes one move (a hint first, once per phone); False
    where no phone has a move (the computer's turn, a page about to follow)."""
    for p in phones:
        page = p.page
        try:
            if page.locator("#now .whose").count() == 0 or banner(page) != "Your turn":
                continue
            best = page.get_by_role("button", name="Best move")
            if best.count():
                if p.name not in hinted:
                    submit(page, "Hint")
                    hinted.add(p.name)
                    assert "this phone only" in page.locator(".hint-box h2").inner_text()
                    return True
                submit(page, "Best move")
                return True
            roll = page.get_by_role("button", name=re.compile(r"^Roll \d (die|dice)$"))
            if roll.count():
                submit(page, roll.inner_text())
                return True
        except sync_api.Error:
            return True  # (the page was reloading: look again)
    return False


def over(page):
    try:
        return bool(re.search(r"wins|tie|You win", banner(page)))
    except sync_api.Error:
        return False


def play(phones, hinted, until, most=600):
    idle = 0
    for _ in range(most):
        if until():
            return
        if step(phones, hinted):
            idle = 0
            continue
        idle += 1
        time.sleep(0.1)
        if idle % 40 == 0:  # (no page moved on by itself for 4 s: a reload)
            for p in phones:
                reload(p.page)
    raise AssertionError("the game did not get there")


def test_three_phones_a_room_game_to_the_end_through_a_restart(browser, server, tmp_path):
    ann, bob, cy = (Phone(browser, server.url, n, tmp_path) for n in ("Ann", "Bob", "Cy"))
    page = ann.go("/play")
    page.get_by_role("link", name=re.compile("^Across phones")).tap()
    page.wait_for_url(re.compile(r"/rooms$"))
    page.get_by_label("People (each on their own phone)").fill("3")
    page.get_by_label("Computers").fill("1")
    page.get_by_label(re.compile(r"^Play to \(optional")).fill(str(TARGET))
    submit(page, "Open the room")
    code = re.search(r"/r/([A-Z0-9]{6})$", page.url).group(1)
    assert page.locator("img.qr").count() == 1 and code in banner(page)
    ann.shot("1-host-lobby")
    page.get_by_label("Your name").fill("Ann")
    submit(page, "Take a seat")
    for phone, how in ((bob, "/join"), (cy, f"/join?code={code}")):
        p = phone.go(how)
        if how == "/join":
            p.get_by_label("Room code").fill(code.lower())
        p.get_by_label("Your name").fill(phone.name)
        submit(p, "Join")
        assert p.url.endswith(f"/r/{code}") and p.locator("img.qr").count() == 0
    seated(ann.page, "Cy")
    submit(ann.page, "Start the game")
    bob.page.wait_for_selector("#now[data-version]", timeout=10_000)  # (live: it follows)
    bob.shot("2-guest-waiting")
    phones, hinted = [ann, bob, cy], set()
    play(phones, hinted, lambda: len(hinted) >= 2)
    reload(bob.page)  # (a phone reloading mid-game: back at its seat)
    assert (
        "(you)"
        in bob.page.locator(".board li.current, .board li").filter(has_text="Bob").inner_text()
    )
    server.kill()
    server.start()  # (the same state folder: every room at its last move)
    for p in phones:
        reload(p.page)
    cy.shot("3-after-restart")
    play(phones, hinted, lambda: all(over(p.page) for p in phones))
    for p in phones:
        text = p.page.locator(".play-end").inner_text()
        assert "Download the decision log" in text
    ann.shot("4-host-end")
    bob.shot("5-guest-end")
    log = ann.page.request.get(f"{server.url}/api/rooms/{code}/log").text()
    path = tmp_path / "room.jsonl"
    path.write_text(log)
    assert ds.review(str(path), player="Bob", tables=os.environ["DICESOLVER_TABLES"]).to_dict()
    for p in phones:
        p.close()


def test_a_companion_room_corrects_a_typed_roll_and_leaving_asks_first(browser, server, tmp_path):
    ann, bob = (Phone(browser, server.url, n, tmp_path) for n in ("Ann", "Bob"))
    page = ann.go("/rooms")
    page.get_by_label("People (each on their own phone)").fill("2")
    page.get_by_label("Real dice: each person types their roll (companion)").check()
    submit(page, "Open the room")
    code = re.search(r"/r/([A-Z0-9]{6})$", page.url).group(1)
    page.get_by_label("Your name").fill("Ann")
    submit(page, "Take a seat")
    b = bob.go(f"/join?code={code}")
    b.get_by_label("Your name").fill("Bob")
    submit(b, "Join")
    seated(ann.page, "Bob")
    submit(ann.page, "Start the game")
    page.get_by_label(re.compile("Your roll of 6 dice")).fill("2 3 4 6 6 2")
    submit(page, "Enter the roll")
    assert "zilch" in page.locator(".feed").inner_text()  # (no scoring die)
    submit(page, "Undo the last move (for everyone)")
    page.get_by_label(re.compile("Your roll of 6 dice")).fill("1 1 1 5 2 3")
    submit(page, "Enter the roll")
    ann.shot("6-companion")
    assert "undone" in page.locator(".feed").inner_text()
    reload(b)
    b.get_by_role("link", name="Leave the room").tap()
    b.wait_for_url(re.compile("/confirm"))
    bob.shot("7-leave-asks")
    b.get_by_role("link", name="No, back to the game").tap()
    b.wait_for_url(re.compile(f"/r/{code}$"))
    assert "(you)" in b.locator(".board").inner_text()
    for p in (ann, bob):
        p.close()
    assert Path(tmp_path / "room-6-companion.png").is_file()
