"""Issue 27: hostile input over HTTP (a real server on loopback) never gives a 500 or a
traceback: malformed JSON, wrong types, huge numbers, impossible dice, oversize and binary
uploads, unknown names, session ids and jobs, many requests at once.  And the sessions:
unguessable ids, bounded in number and idle time, none seeing another's."""

import html
import random
import re
from concurrent.futures import ThreadPoolExecutor

import httpx2 as httpx
import pytest

from dicesolver.web.calls import NAMES, keywords

from .webserver import running


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running(str(tmp_path_factory.getbasetemp() / "tables")) as url:
        yield url


def with_token(c: httpx.Client) -> httpx.Client:
    """The client as a browser that opened a page: its cookie, and the page's form token
    (issue 36 item 5) sent with every request as the X-CSRF-Token header."""
    r = c.get("/")
    c.headers["x-csrf-token"] = re.search(r'name="csrf-token" content="(\w+)"', r.text).group(1)
    return c


@pytest.fixture(scope="module")
def http(server):
    with httpx.Client(base_url=server, timeout=120) as c:
        yield with_token(c)


def calm(r: httpx.Response) -> None:
    """Not a server error, and no traceback or path of ours in what the client sees."""
    assert r.status_code < 500, (r.request.url, r.status_code, r.text[:500])
    for word in ("Traceback", 'File "/', "dicesolver/web/", "site-packages"):
        assert word not in r.text, (r.request.url, r.text[:500])
    if r.request.url.path.startswith("/api/") and r.status_code >= 400:
        body = r.json()
        assert isinstance(body["error"], str) and "\n" not in body["error"]
        assert body["exit_code"] in (2, 3)


NOT_JSON = "the request body is not valid JSON ("
NOT_UTF8 = "the request body is not UTF-8 text"
NOT_AN_OBJECT = "the request body must be a JSON object of keyword arguments"
NOT_A_QUESTION = 'the body is {"name": NAME, "kwargs": {...}}: the question'  # (/api/jobs)
TWICE = "rules"  # a keyword given twice (test_a_keyword_given_twice_is_refused)
# each body and the words of its refusal (400, one line); None: no body at all, which asks
# as {} does.  /api/jobs refuses a body it cannot read as the others do, any other with
# NOT_A_QUESTION
BODIES = [
    (b"", None),
    (b"{", NOT_JSON),
    (b"[1, 2", NOT_JSON),
    (b"null", NOT_AN_OBJECT),
    (b"[]", NOT_AN_OBJECT),
    (b'"advise"', NOT_AN_OBJECT),
    (b"42", NOT_AN_OBJECT),
    (b'{"rules": "farkle",}', NOT_JSON),
    (b"\xff\xfe\x00\x01", NOT_UTF8),
    (b'{"dice": NaN}', "dice"),
    (b'{"dice": Infinity}', "dice"),
    (b"[" * 100_000 + b"]" * 100_000, NOT_JSON),
    (b'{"a": ' * 5000 + b"1" + b"}" * 5000, NOT_JSON),
    (b'{"turn": 1' + b"0" * 5000 + b"}", NOT_JSON),
    (b'{"rules": "farkle", "rules": "zilch"}', TWICE),
    ('{"rules": "f\u00e4rkle"}'.encode(), "not a preset"),
]
READ_FIRST = (NOT_JSON, NOT_UTF8, TWICE)  # (refused before the body is looked into)


@pytest.mark.parametrize("body, words", BODIES, ids=range(len(BODIES)))
def test_malformed_bodies(http, body, words):
    for name in ("advise", "review", "yahtzee_advise", "jobs"):
        r = http.post(f"/api/{name}", content=body, headers={"content-type": "application/json"})
        calm(r)
        if words is None:
            empty = http.post(f"/api/{name}", json={})
            assert (r.status_code, r.json()) == (empty.status_code, empty.json()), name
        else:
            said = NOT_A_QUESTION if name == "jobs" and words not in READ_FIRST else words
            assert r.status_code == 400 and said in r.json()["error"], (name, r.text)


def test_a_keyword_given_twice_is_refused(http):
    """{"rules": "farkle", "rules": "zilch"}: which rules were meant is not known; refused
    with a line naming the keyword (the other names refuse it today for another reason)."""
    body = b'{"rules": "farkle", "rules": "zilch"}'
    for name in ("advise", "review", "yahtzee_advise", "jobs"):
        r = http.post(f"/api/{name}", content=body, headers={"content-type": "application/json"})
        calm(r)
        assert r.status_code == 400, (name, r.text)
    r = http.post("/api/advise", content=body, headers={"content-type": "application/json"})
    assert TWICE in r.json()["error"], r.text


WRONG = [
    {"dice": "three"},
    {"dice": True},
    {"dice": 3.5},
    {"dice": [3]},
    {"turn": {"a": 1}},
    {"rules": 5},
    {"rules": ["farkle"]},
    {"rules": None},
    {"opponents": [True, False]},
    {"opponents": [[1]]},
    {"opponents": list(range(10_000))},
    {"roll": {"1": 1}},
    {"roll": "1,,5"},
    {"roll": "1;5"},
    {"score": "lots"},
    {"final_round": "yes"},
    {"challenges": [1, 2]},
    {"take_over": "3"},
    {"take_over": [3, 200, 5]},
    {"frozen": "9,9"},
]
HUGE = [
    {"turn": 10**30},
    {"turn": -(10**30)},
    {"dice": 10**18},
    {"dice": -1},
    {"dice": 0},
    {"score": 10**9 + 50, "opponents": [0]},
    {"score": -(10**40), "opponents": [0]},
    {"turn": 1e308},
    {"permanent": 10**15},
    {"beat": 10**12},
    {"zilches": 10**10},
    {"deficit": 10**15},
    {"target": 10**14},
    {"target": 50, "players": 10**6},
    {"players": -3},
    {"rolls_left": 10**9},
    {"upper": -(10**12)},
]
DICE = [
    {"roll": [7]},
    {"roll": [0, 1, 1, 1, 1, 1]},
    {"roll": [1, 1, 1, 1, 1, 1, 1]},
    {"dice": 7},
    {"dice": 3, "roll": [1, 5, 5, 5]},
    {"dice": [1, 2, 3, 4, 5, 6]},
    {"dice": [9, 9, 9, 9, 9]},
    {"dice": "1,2,3,4"},
    {"filled": ["nonsense"]},
    {"filled": "ones,ones"},
    {"keep": [1]},
]


# what a name needs before it looks at anything else: its refusal of a body without it
NEEDS = {
    "endgame": "give --deficit D (or --table, or --final-round --scores ...)",
    "review": "review needs the log's text: log_text",
    "yahtzee_advise": "--dice: no dice given",
}


def _names(body: dict, error: str) -> bool:
    """The error line names a keyword of the body (as a flag too), or a box it gave."""
    for k, v in body.items():
        if k in error or k.replace("_", "-") in error:
            return True
        if isinstance(v, list) and any(isinstance(x, str) and f"'{x}'" in error for x in v):
            return True
    return False


@pytest.mark.parametrize("body", WRONG + HUGE + DICE, ids=range(len(WRONG + HUGE + DICE)))
def test_wrong_types_huge_numbers_impossible_dice(http, body):
    """Every name refuses each body: 400 and one line naming what is wrong (or what the name
    needs first)."""
    for name in NAMES:
        r = http.post(f"/api/{name}", json=body)
        calm(r)
        assert r.status_code == 400, (name, body, r.text)
        error = r.json()["error"]
        assert _names(body, error) or error == NEEDS.get(name), (name, body, error)


def test_random_values_for_every_keyword_of_every_name(http):
    """Deterministic fuzz: every keyword of every name with values of every JSON type."""
    rng = random.Random(27)
    values = [
        None,
        True,
        False,
        0,
        1,
        -1,
        6,
        7,
        50,
        400,
        10**9,
        10**16,
        0.5,
        -1e300,
        "",
        "x",
        "1,5",
        "farkle",
        "yahtzee",
        "../../etc/passwd",
        "\x00",
        [],
        [1],
        [1, 5, 5],
        ["ones"],
        [None],
        {},
        {"a": 1},
        "9" * 300,
    ]
    for name in NAMES:
        keys = list(keywords(name)) + ["rules_text", "log_text", "policy_text", "bogus"]
        for _ in range(25):
            body = {k: rng.choice(values) for k in rng.sample(keys, min(len(keys), 3))}
            calm(http.post(f"/api/{name}", json=body))


UNKNOWN = (400, "unknown name '")  # (the line goes on: "; names: advise, strategy, ...")
NOT_ALLOWED = (405, "Method Not Allowed")
NOT_FOUND = (404, "Not Found")


def test_unknown_names_and_methods(http):
    for path, post, get in (
        ("/api/nope", UNKNOWN, NOT_ALLOWED),
        ("/api/__init__", UNKNOWN, NOT_ALLOWED),
        ("/api/play_game", UNKNOWN, NOT_ALLOWED),
        ("/api/simulate", UNKNOWN, NOT_ALLOWED),
        ("/api/export", UNKNOWN, NOT_ALLOWED),
        ("/api/verify", UNKNOWN, NOT_ALLOWED),
        ("/api/Advise", UNKNOWN, NOT_ALLOWED),
        ("/api/advise%00", UNKNOWN, NOT_ALLOWED),
        ("/api/", NOT_FOUND, NOT_FOUND),
        ("/api/jobs/nope", NOT_ALLOWED, (404, "no such job (finished long ago, or never)")),
        ("/api/..%2F..%2Fetc%2Fpasswd", NOT_FOUND, NOT_FOUND),
    ):
        for r, (status, said) in ((http.post(path, json={}), post), (http.get(path), get)):
            calm(r)
            assert r.status_code == status and r.json()["error"].startswith(said), (path, r.text)
    # (/jobs/nope: 200 today, test_a_refused_page_is_not_200)
    for path in ("/nope", "/static/../app.py", "/static/%2e%2e/app.py", "/jobs/nope", "/roll/x"):
        r = http.get(path)
        calm(r)
        assert "def create_app" not in r.text
        assert r.status_code == 404 or path == "/jobs/nope", (path, r.status_code)


LARGER = "the request is larger than this server takes (5 MB)"


def test_oversize_bodies_are_refused(http):
    big = b"{" + b" " * (6 << 20) + b"}"
    r = http.post("/api/advise", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["error"] == LARGER
    calm(r)
    r = http.post("/api/advise", json={"rules_text": "x" * ((1 << 20) + 1)})
    assert r.status_code == 400
    assert r.json()["error"] == "rules_text: 1048577 characters, more than it can be (1048576)"
    calm(r)
    r = http.post("/review", files={"log_file": ("big.jsonl", b"x" * (6 << 20))}, data={"ask": "1"})
    assert r.status_code == 413 and r.text == LARGER
    calm(r)


def _chunks():
    for _ in range(7):
        yield b" " * (1 << 20)


def test_a_body_without_length_is_counted_as_it_comes(http):
    r = http.post("/api/advise", content=_chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["error"] == LARGER
    calm(r)


JUNK = bytes(range(256)) * 64


def test_binary_uploads(http):
    """Refused, each with its line (the pages' status: test_a_refused_page_is_not_200)."""
    for field, path in (("log_file", "/review"), ("rules_file", "/rules")):
        r = http.post(path, files={field: ("x.bin", JUNK)}, data={"ask": "1"})
        calm(r)
        assert "not UTF-8 text" in r.text
    for body, said in (
        ({"log_text": JUNK.decode("latin-1")}, "log_text: a NUL character in it"),
        ({"rules_text": "\x00\x01 = 2"}, "rules_text: a NUL character in it"),
        ({"rules_text": "[a]\n" * 10_000}, "rules file uploaded rules: not valid TOML ("),
        ({"rules_text": "a = " + "[" * 10_000}, "rules file uploaded rules: nested too deeply"),
    ):
        r = http.post("/api/review" if "log_text" in body else "/api/advise", json=body)
        calm(r)
        assert r.status_code == 400 and r.json()["error"].startswith(said), r.text
    r = http.post("/rules", files={"rules_file": ("r.toml", b"dice = 'six'")}, data={})
    calm(r)


def test_hostile_pages(http):
    for path in (
        "/roll?ask=1&dice=abc&turn=1e9",
        "/roll?ask=1&dice=3&turn=99999999999999999999&score=1&opponents=a,b",
        "/roll?ask=1&rules=upload:nothing",
        "/roll?ask=1&rules=../../etc/passwd",
        "/dice?ask=1&roll=999999",
        "/dice?ask=1&roll=" + "1" * 10_000,
        "/dice?ask=1&roll=<script>alert(1)</script>",
        "/yahtzee?ask=1&filled=nonsense&dice=1,2",
        "/yahtzee?ask=1&yahtzee_rules=<b>x</b>",
        "/card?rules=../../etc/passwd",
        "/card?rules=zilch&not_on_board=1",
        "/jobs/<script>?back=//evil.example",
        "/rules?next=//evil.example",
    ):
        r = http.get(path)
        calm(r)
        assert "<script>alert" not in r.text and "<b>x</b>" not in r.text
    r = http.post("/build", data={"token": "forged"})
    calm(r)
    r = http.post("/roll", content=b"\xff" * 100, headers={"content-type": "multipart/form-data"})
    calm(r)
    assert r.status_code == 400 and "Missing boundary in multipart." in r.text
    r = http.post(
        "/review",
        content=b"--x\r\nbroken",
        headers={"content-type": "multipart/form-data; boundary=x"},
    )
    calm(r)


def _refusal(r) -> str | None:
    """The error line a page shows."""
    m = re.search(r'role="alert"><strong>Cannot answer:</strong> (.*?)</div>', r.text)
    return m and html.unescape(m.group(1))


PAGE_REFUSALS = [  # (method, path, what it sends, the status it should get, its line)
    ("GET", "/roll?ask=1&dice=abc&turn=1e9", {}, 400, "Dice left must be a whole number"),
    (
        "GET",
        "/roll?ask=1&dice=3&turn=99999999999999999999&score=1&opponents=a,b",
        {},
        400,
        "Turn total must be a whole number, got '99999999999999999999'",
    ),
    ("GET", "/roll?ask=1&rules=upload:nothing", {}, 400, "the uploaded rules are gone"),
    ("GET", "/roll?ask=1&rules=../../etc/passwd", {}, 400, "'../../etc/passwd': not a preset"),
    ("GET", "/dice?ask=1&roll=999999", {}, 400, "--roll: a die shows 1..6, got 9"),
    ("GET", "/dice?ask=1&roll=" + "1" * 10_000, {}, 400, "roll: 10000 characters, more than"),
    (
        "GET",
        "/dice?ask=1&roll=<script>alert(1)</script>",
        {},
        400,
        "--roll must be comma-separated die faces",
    ),
    ("GET", "/yahtzee?ask=1&filled=nonsense&dice=1,2", {}, 400, "a hand of yahtzee has 5 dice"),
    ("GET", "/yahtzee?ask=1&yahtzee_rules=<b>x</b>", {}, 400, "'<b>x</b>': not a preset"),
    ("GET", "/card?rules=../../etc/passwd", {}, 400, "'../../etc/passwd': not a preset"),
    ("GET", "/jobs/nope", {}, 404, "no such build (finished long ago, or never)"),
    ("GET", "/jobs/<script>?back=//evil.example", {}, 404, "no such build"),
    ("POST", "/build", {"data": {"token": "forged"}}, 400, "this offer has expired"),
    (
        "POST",
        "/review",
        {"files": {"log_file": ("x.bin", JUNK)}, "data": {"ask": "1"}},
        400,
        "the log file x.bin: not UTF-8 text",
    ),
    (
        "POST",
        "/rules",
        {"files": {"rules_file": ("x.bin", JUNK)}, "data": {"ask": "1"}},
        400,
        "the rules file x.bin: not UTF-8 text",
    ),
    (
        "POST",
        "/rules",
        {"files": {"rules_file": ("r.toml", b"dice = 'six'")}},
        400,
        "key 'dice': expected an integer in [1, 6], got 'six'",
    ),
]


@pytest.mark.parametrize(
    "method, path, sent, status, said", PAGE_REFUSALS, ids=[c[1][:40] for c in PAGE_REFUSALS]
)
def test_a_refused_page_is_not_200(http, method, path, sent, status, said):
    """A page that cannot answer says why in one line, with the status of the refusal (bad
    input 400, no such build 404), as the API does: not 200, as if it had answered."""
    r = http.request(method, path, **sent)
    calm(r)
    assert said in (_refusal(r) or ""), r.text[:2000]
    assert r.status_code == status


def test_unknown_and_forged_session_ids(http):
    for sid in (b"", b"x", b"A" * 43, b"A" * 10_000, b"../../", b"\xff", b"a;b=c"):
        r = http.get("/roll", headers={"cookie": b"dicesolver_session=" + sid})
        calm(r)
        assert r.status_code == 200


def test_many_requests_at_once(http, server):
    """100 requests in parallel, the same ones and hostile ones mixed: all answered."""
    bodies = [
        {"rules": "farkle", "dice": 3, "turn": 400},
        {"dice": "x"},
        {"roll": [1, 5]},
        {"rules": "zilch", "dice": 4, "turn": 550, "roll": [1, 5, 2, 2]},
    ]

    def one(i):
        with httpx.Client(base_url=server, timeout=120) as c:
            return c.post("/api/advise", json=bodies[i % len(bodies)])

    with ThreadPoolExecutor(16) as pool:
        got = list(pool.map(one, range(100)))
    for i, r in enumerate(got):
        calm(r)
        assert r.status_code == (200 if i % 4 in (0, 3) else 400)


def test_security_headers(http):
    r = http.get("/roll")
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert r.headers["x-content-type-options"] == "nosniff"
    assert "<script>" not in r.text.replace('<script src="/static/app.js" defer></script>', "")
    assert " onclick=" not in r.text and " style=" not in r.text


def test_only_loopback_host_names_on_loopback(http):
    """Against DNS rebinding: a page asked for under another host name is refused."""
    r = http.get("/", headers={"host": "attacker.example"})
    assert r.status_code == 400


# --- sessions ------------------------------------------------------------------------------
def test_sessions_are_unguessable_bounded_and_expire():
    from dicesolver.web.sessions import Sessions

    now = [0.0]
    s = Sessions(limit=3, idle=10.0, clock=lambda: now[0])
    a, b = s.new(), s.new()
    assert len(a.id) >= 43 and a.id != b.id
    a.data["x"] = 1
    assert s.get(a.id) is a and s.get(b.id).data == {}  # none sees another's data
    assert s.get(a.id[:-1]) is None and s.get("") is None and s.get(None) is None
    s.get(a.id)  # (a used after b)
    c, d = s.new(), s.new()  # over the limit: the least recently used (b) goes
    assert s.get(b.id) is None and len(s) == 3 and s.get(a.id) is a
    now[0] = 5.0
    assert s.get(c.id) is c
    now[0] = 12.0  # a and d idle 12 s > 10: gone; c (seen at 5) lives on
    assert s.get(a.id) is None and s.get(d.id) is None and s.get(c.id) is c
    now[0] = 100.0
    s.new()
    assert len(s) == 1


def test_an_uploaded_rule_file_stays_in_its_own_session(server):
    from importlib import resources

    farkle = resources.files("dicesolver").joinpath("rulesets", "farkle.toml").read_text()
    mine = farkle.replace('name = "farkle"', 'name = "our-table"')
    with httpx.Client(base_url=server) as alice, httpx.Client(base_url=server) as bob:
        with_token(alice), with_token(bob)
        r = alice.post(
            "/rules", files={"rules_file": ("ours.toml", mine.encode())}, data={"next": "/roll"}
        )
        assert r.status_code == 303 and "upload%3A" in r.headers["location"]
        assert "our-table (uploaded)" in alice.get("/roll").text
        assert "our-table (uploaded)" not in bob.get("/roll").text
        value = r.headers["location"].split("rules=")[1]
        answer = alice.get(f"/roll?ask=1&dice=3&turn=400&rules={value}").text
        assert "ROLL" in answer and "400.95" in answer
        assert "gone" in bob.get(f"/roll?ask=1&dice=3&turn=400&rules={value}").text
