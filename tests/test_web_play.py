"""Issue 27's play screens over HTTP (a real server on loopback, the forms a page posts):
a whole game against the computer played to the end through the pages with a fixed seed
ends as the step engine (match/) driven directly with that seed ends, with the same
decision log to download; a Yahtzee solitaire game likewise; hostile input (unknown and
other sessions' game ids, moves out of turn, stale and concurrent moves in one game,
malformed and oversize bodies) never gives a 500."""

import contextlib
import html
import json
import re
from concurrent.futures import ThreadPoolExecutor

import httpx2 as httpx
import pytest

import dicesolver as ds
from dicesolver.match import YahtzeeMatch, ZilchMatch, log_text
from dicesolver.web import play

from .test_web_hostile import calm, with_token

TARGET = 500  # farkle to 500: its two-player game table is solved in about a second


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    folder = str(tmp_path_factory.getbasetemp() / "tables")
    ds.game("farkle", target=TARGET, tables=folder)  # (the computer plays by P(win))
    ds.yahtzee_advise(dice=[1, 1, 1, 1, 1], tables=folder)
    return folder


@contextlib.contextmanager
def client(server):
    """A browser: its cookies, and its forms' token (issue 36 item 5) sent with each post."""
    with httpx.Client(base_url=server, timeout=120, follow_redirects=True) as c:
        yield with_token(c)


def where(r):
    """(phase, turn total, move number) the game page shows."""
    m = re.search(r'data-phase="(\w+)"(?: data-turn-total="(\d+)")? data-version="(\d+)"', r.text)
    assert m, r.text[:2000]
    return m.group(1), int(m.group(2) or 0), m.group(3)


def problem(r):
    m = re.search(
        r'class="problem" role="alert"><strong>(?:Cannot answer|Not allowed):</strong> (.*?)</div>',
        r.text,
    )
    return m and html.unescape(m.group(1))


def start(c, **form):
    r = c.post("/play/setup", data=form)
    calm(r)
    assert "/play/g/" in str(r.url), problem(r) or r.text[:2000]
    return r, str(r.url).split("#")[0]


def bank_from_300(phase, total):
    """A person who plays the best set-aside and banks from 300 where the roll is theirs
    to decide: the same choices for the pages and the engine."""
    if phase == "roll":
        return "roll"
    if phase == "keep":
        return "best"
    return "bank" if total >= 300 else "roll"


def test_a_game_against_the_computer_over_http_ends_as_the_engine_ends(server, tables):
    """Seed 11, farkle to 500, you and one computer (by P(win): its table is stored); the
    computer's turns tapped roll by roll ("Next roll").  The final scores, the winner and
    the decision log are the engine's with that seed; the review shown is zilch play's."""
    with client(server) as c:
        r, url = start(c, mode="computer", rules="farkle", target=str(TARGET), seed="11")
        assert "by the probability of winning" in r.text
        moves = 0
        while True:
            phase, total, at = where(r)
            if phase == "over":
                break
            if 'value="next"' in r.text:
                data = {"do": "next"}
            else:
                data = {"do": bank_from_300(phase, total)}
                data["pick"] = re.findall(r'name="pick" value="(\d+)" checked', r.text)
            r = c.post(url, data={**data, "at": at})
            calm(r)
            assert problem(r) is None, problem(r)
            moves += 1
            assert moves < 500
        scores = [int(x) for x in re.findall(r'board-score">(\d+)', r.text)]
        log = c.get(url + "/log")
        assert log.status_code == 200 and "attachment" in log.headers["content-disposition"]

    eng = ZilchMatch("farkle", tables, target=TARGET)
    s = eng.start(["you"], computers=1, seed=11).state
    while s.phase != "over":
        v = eng.view(s)
        action = "roll" if v["computer"] else bank_from_300(s.phase, v["turn_total"])
        s = eng.apply(s, action).state
    assert scores == [x.score for x in s.seats]
    assert log.text == log_text(s.log)
    winner = s.seats[s.winners[0]].name
    assert ("You win!" if winner == "you" else f"{winner} wins") in r.text
    (review,) = eng.reviews(s)["you"]
    assert f"{review.decisions} decision" in r.text
    assert f"{100 * review.loss_total:.2f}\u202f%" in r.text  # (by P(win))


def test_the_log_downloaded_reviews_as_the_page_does(server, tables, tmp_path):
    with client(server) as c:
        r, url = start(c, mode="computer", rules="farkle", target=str(TARGET), seed="3")
        while where(r)[0] != "over":
            phase, total, at = where(r)
            do = "skip" if 'value="skip"' in r.text else "best" if phase != "roll" else "roll"
            r = c.post(url, data={"do": do, "at": at})
        text = c.get(url + "/log").text
    path = tmp_path / "game.jsonl"
    path.write_text(text)
    got = ds.review(str(path), player="you", tables=tables)
    assert got.loss_total == 0 and got.decisions == sum(
        1
        for ln in text.splitlines()
        if json.loads(ln)["player"] == "you" and json.loads(ln)["then"] != "zilch"
    )
    assert f"{got.decisions} decision" in r.text


@pytest.mark.slow  # (a full-size reference: the slow tier)
def test_a_yahtzee_game_over_http_ends_as_the_engine_ends(server, tables):
    with client(server) as c:
        r, url = start(c, mode="yahtzee", yahtzee_rules="yahtzee", seed="5")
        r = c.post(url, data={"do": "hint", "at": where(r)[2]})
        assert "Expected final score" in r.text
        while where(r)[0] != "over":
            phase, _, at = where(r)
            r = c.post(url, data={"do": "roll" if phase == "roll" else "best", "at": at})
            assert problem(r) is None, problem(r)
        log = c.get(url + "/log").text
    eng = YahtzeeMatch("yahtzee", tables)
    s = eng.start(5).state
    while s.phase != "over":
        s = eng.apply(s, "roll" if s.phase == "roll" else "best").state
    assert f"Final score {s.total}" in r.text
    assert log == log_text(s.log)
    assert "0 errors" in r.text  # (best play throughout: the review finds no error)


def test_hot_seat_and_companion_over_http(server):
    """Two people on one phone; a companion game with every roll typed (a wrong count
    refused with the engine's line, nothing applied)."""
    with client(server) as c:
        r, url = start(c, mode="hotseat", rules="farkle", target="300", name1="Ann", name2="Bob")
        assert "Ann&#39;s turn" in r.text
        r = c.post(url, data={"do": "roll", "at": where(r)[2]})
        r = c.post(url, data={"do": "best", "at": where(r)[2]})
        calm(r)
        r, url = start(c, mode="companion", rules="farkle", name1="Ann", name2="Bob", name3="Cy")
        at = where(r)[2]
        r = c.post(url, data={"do": "roll", "dice": "1,5,2", "at": at})
        assert problem(r) == "6 dice were rolled, not 3" and where(r)[2] == at
        r = c.post(url, data={"do": "roll", "dice": "1 1 1 5 2 3", "at": at})
        assert where(r)[0] == "keep"
        r = c.post(url, data={"do": "bank", "pick": ["0", "1", "2", "3"], "at": where(r)[2]})
        assert where(r)[0] == "roll" and "Bob&#39;s turn" in r.text
        assert re.findall(r'board-score">(\d+)', r.text) == ["1050", "0", "0"]


def test_a_person_without_a_decision_gets_a_review_that_says_so(server):
    """Each person's review at the end, also of one whose every roll left no choice (Bob:
    his only roll a zilch), instead of no section at all (the slow browser test's flake)."""
    with client(server) as c:
        r, url = start(c, mode="companion", rules="farkle", target="1000", name1="Ann", name2="Bob")
        r = c.post(url, data={"do": "roll", "dice": "1 1 1 1 1 1", "at": where(r)[2]})
        picks = [str(i) for i in range(6)]
        r = c.post(url, data={"do": "bank", "pick": picks, "at": where(r)[2]})
        while where(r)[0] != "over":
            assert "Bob&#39;s" in r.text, r.text[:2000]
            r = c.post(url, data={"do": "roll", "dice": "2 3 4 6 6 2", "at": where(r)[2]})
        heads = [html.unescape(h) for h in re.findall(r'<h2 id="review-[^"]*">(.*?)</h2>', r.text)]
        assert heads[0].startswith("Review of Ann: 1 decision") and len(heads) == 2, heads
        assert heads[1] == "Review of Bob: no decision", heads


# --- hostile input --------------------------------------------------------------------------
def test_unknown_and_other_sessions_games_are_not_found(server):
    with client(server) as mine, client(server) as theirs:
        _, url = start(mine, mode="hotseat", rules="farkle", name1="A", name2="B")
        path = url.split(server)[1]
        for c, p in [
            (theirs, path),
            (theirs, path + "/log"),
            (mine, "/play/g/nope"),
            (mine, "/play/g/" + "x" * 5000),
            (mine, "/play/g/%00%ff"),
        ]:
            r = c.get(p)
            calm(r)
            assert r.status_code == 404 and "no such game" in r.text
            if not p.endswith("/log"):
                r = c.post(p, data={"do": "roll", "at": "0"})
                calm(r)
                assert r.status_code == 404
        r = theirs.get(path, headers={"cookie": "dicesolver_session=forged"})
        assert r.status_code == 404


def test_moves_out_of_turn_are_refused_with_a_line(server):
    with client(server) as c:
        r, url = start(c, mode="computer", rules="farkle", target=str(TARGET), seed="2")
        at = where(r)[2]
        for data, said in [
            ({"do": "bank"}, "roll first: a turn starts with a roll"),
            ({"do": "next"}, "it is your turn, not a computer's"),
            ({"do": "skip"}, "it is not a computer's turn"),
            ({"do": "keep"}, "unknown move 'keep'"),
            ({"do": "<script>alert(1)</script>"}, "unknown move '<script>"),
            ({"do": "roll", "dice": "1 1 1 1 1 1"}, "the engine rolls the dice"),
            ({}, "unknown move ''"),
        ]:
            r = c.post(url, data={**data, "at": at})
            calm(r)
            assert said in (problem(r) or ""), (data, problem(r))
            assert where(r)[2] == at  # (nothing applied)
        r = c.post(url, data={"do": "roll", "at": at})
        phase, _, at2 = where(r)
        assert phase == "keep"
        for pick in (["9"], ["-1"], ["a"], ["0"] * 30, [""], ["1" * 50]):
            r = c.post(url, data={"do": "roll", "pick": pick, "at": at2})
            calm(r)
            assert problem(r) and where(r)[2] == at2
        r = c.post(url, data={"do": "roll", "at": at})  # (a stale page: the move before)
        assert "an earlier moment of the game" in problem(r) and where(r)[2] == at2


def test_concurrent_moves_in_one_game_apply_once(server):
    with client(server) as c:
        r, url = start(c, mode="hotseat", rules="farkle", name1="A", name2="B", seed="4")
        at = where(r)[2]
        cookies, headers = dict(c.cookies), dict(c.headers)

    def tap(_):
        with httpx.Client(base_url=server, timeout=120, cookies=cookies, headers=headers) as one:
            return one.post(url, data={"do": "roll", "at": at})

    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(tap, range(16)))
    for r in got:
        calm(r)
        assert r.status_code == 303
    with httpx.Client(base_url=server, timeout=120, cookies=cookies) as c:
        r = c.get(url)
    assert where(r)[:1] == ("keep",) and int(where(r)[2]) == int(at) + 1


REFUSED_SETUPS = [
    {"mode": "computer", "computers": "9"},
    {"mode": "computer", "target": "-5"},
    {"mode": "computer", "target": "9" * 15},
    {"mode": "computer", "seed": "-1"},
    {"mode": "computer", "name1": "x" * 41},
    {"mode": "hotseat", "name1": "A", "name2": "a"},
    {"mode": "hotseat", "name1": "A"},
    {"mode": "companion", "rules": "upload:gone", "name1": "A", "name2": "B"},
    {"mode": "yahtzee", "yahtzee_rules": "/etc/passwd"},
    {"mode": "computer", "rules": "../../etc/passwd"},
    {"mode": "nope"},
]


def test_malformed_and_oversize_bodies(server):
    """Each refused: a body the form parser refuses with 400 (413 beyond the limit); one it
    reads as no form at all (no move, no moment) with the game page as it stands (303 to
    it, as a stale tap: nothing applied); a set-up refused with its line."""
    with client(server) as c:
        r, url = start(c, mode="hotseat", rules="farkle", name1="A", name2="B")
        at = where(r)[2]
        for body, kind, status in [
            (b"\xff\xfe\x00\x01" * 100, "application/x-www-form-urlencoded", 303),
            (b"do=roll&" * 100, "application/x-www-form-urlencoded", 400),
            (b"{", "application/json", 303),
            (
                b"--x\r\nContent-Disposition: form-data; name=do\r\n\r\nroll",
                "multipart/form-data",
                400,
            ),
            (
                b'--x\r\nContent-Disposition: form-data; name="f"; filename="a"\r\n\r\n'
                + b"\x00" * 10_000
                + b"\r\n--x--\r\n",
                "multipart/form-data; boundary=x",
                400,
            ),
            (b"at=0&pick=" + b"1" * 100_000, "application/x-www-form-urlencoded", 400),
            (b"a" * (6 << 20), "application/x-www-form-urlencoded", 413),
        ]:
            r = c.post(url, content=body, headers={"content-type": kind})
            calm(r)
            assert (r.history[0] if r.history else r).status_code == status, (body[:20], r.text)
            if status == 303:
                assert "an earlier moment" in problem(r) and where(r)[2] == at
        for form in REFUSED_SETUPS:
            r = c.post("/play/setup", data=form)
            calm(r)
            assert "/play/setup" in str(r.url) and problem(r), (form, r.text[:300])


def test_a_refused_set_up_is_not_200(server):
    """Issue 36: a set-up refused says why with 400, as the API refuses bad input."""
    with client(server) as c:
        for form in REFUSED_SETUPS:
            r = c.post("/play/setup", data=form)
            calm(r)
            assert problem(r) and r.status_code == 400, (form, r.status_code)


def test_a_session_keeps_a_few_games(server):
    with client(server) as c:
        urls = [start(c, mode="hotseat", rules="farkle", name1="A", name2="B")[1] for _ in range(6)]
        assert [c.get(u).status_code for u in urls] == [404] * 2 + [200] * (play.GAMES)


def test_the_computer_by_the_chance_to_win_offers_its_table_first(server, tables):
    """Farkle to 10 000 against a computer: its game table is not stored, so the set-up
    page offers its build (the estimate, the command) and starts no solve; "play now"
    starts the game with the computer by expected points, as zilch play does."""
    from dicesolver.answers.inputs import rule_set, tables_of
    from dicesolver.variants import of

    with client(server) as c:
        r = c.post("/play/setup", data={"mode": "computer", "rules": "farkle", "seed": "1"})
        calm(r)
        assert "/play/setup" in str(r.url)
        assert "not built yet" in r.text and 'name="token"' in r.text
        assert "zilch game --rules farkle --players 2" in r.text
        _, url = start(c, mode="computer", rules="farkle", seed="1", points="1")
        assert "the computer plays by expected points" in c.get(url).text
    farkle = rule_set("farkle")
    assert tables_of(farkle, tables).game_table(of(farkle, 2).key(2)) is None  # (no solve)


def test_a_hot_seat_game_under_uploaded_rules(server):
    """A rule file uploaded in the session (farkle to 300): a game under it to the end;
    its log lines name no rules (the file is the player's: zilch review --rules FILE)."""
    from importlib import resources

    text = resources.files("dicesolver").joinpath("rulesets", "farkle.toml").read_text()
    old = next(ln for ln in text.splitlines() if ln.startswith("target = "))
    with client(server) as c:
        r = c.post(
            "/rules", data={"rules_text": text.replace(old, "target = 300"), "next": "/play/setup"}
        )
        value = re.search(r'<option value="(upload:[^"]+)"[^>]*selected', r.text).group(1)
        r, url = start(c, mode="hotseat", rules=value, name1="Ann", name2="Bob", seed="9")
        while where(r)[0] != "over":
            phase, _, at = where(r)
            r = c.post(url, data={"do": "roll" if phase == "roll" else "best", "at": at})
        lines = [json.loads(ln) for ln in c.get(url + "/log").text.splitlines()]
    assert lines and all("rules" not in ln for ln in lines)
    assert "Review of Ann" in r.text and "Review of Bob" in r.text
    assert " style=" not in r.text and r.text.count("<script") == 1  # (the CSP's: app.js only)


def test_leaving_a_game_reviews_the_decisions_so_far(server):
    with client(server) as c:
        r, url = start(c, mode="hotseat", rules="farkle", name1="Ann", name2="Bob", seed="6")
        r = c.post(url, data={"do": "roll", "at": where(r)[2]})
        r = c.post(url, data={"do": "best", "at": where(r)[2]})
        r = c.post(url, data={"do": "quit", "at": where(r)[2]})
        assert where(r)[0] == "over" and "Game left" in r.text
        lines = [json.loads(ln) for ln in c.get(url + "/log").text.splitlines()]
        mine = sum(1 for ln in lines if ln["player"] == "Ann" and ln["then"] != "zilch")
        assert mine and f"Review of Ann: {mine} decision" in r.text
        r = c.post(url, data={"do": "roll", "at": where(r)[2]})
        assert problem(r) == "the game is over"


def test_the_hint_is_zilch_plays(server, tables):
    """The hint's table: every set-aside with the values of rolling and banking after it,
    as the engine's hint (zilch play's) gives them, best first."""
    with client(server) as c:
        r, url = start(c, mode="computer", rules="farkle", target=str(TARGET), seed="11")
        r = c.post(url, data={"do": "roll", "at": where(r)[2]})
        r = c.post(url, data={"do": "hint", "at": where(r)[2]})
    box = r.text[r.text.index('class="hint-box"') : r.text.index("</table>")]
    shown = re.findall(r"<td>([\d.]+)\u202f%</td><td>([^<]+)</td>", box.replace("<strong>", ""))
    eng = ZilchMatch("farkle", tables, target=TARGET)
    s = eng.apply(eng.start(["you"], computers=1, seed=11).state, "roll").state
    h = eng.hint(s)
    assert h.objective == "game" and len(shown) == len(h.options) > 1

    def pct(x):
        return "–" if x is None else f"{100 * x:.2f}\u202f%"

    assert [(f"{a}\u202f%", b) for a, b in shown] == [
        (pct(o["roll"]), pct(o["bank"])) for o in h.options
    ]


def test_yahtzee_with_real_dice_typed(server):
    with client(server) as c:
        r, url = start(c, mode="yahtzee", yahtzee_rules="yahtzee", real_dice="1")
        assert where(r)[0] == "roll" and "Enter the roll" in r.text
        at = where(r)[2]
        r = c.post(url, data={"do": "roll", "dice": "6 6 6", "at": at})
        assert problem(r) == "5 dice were rolled, not 3" and where(r)[2] == at
        r = c.post(url, data={"do": "roll", "dice": "66666", "at": at})
        r = c.post(url, data={"box": "yahtzee", "at": where(r)[2]})
        assert where(r)[0] == "roll" and "Score <strong>50</strong>" in r.text
        assert "Turn 2 of 13" in r.text
