"""Issue 27: hostile input over HTTP (a real server on loopback) never gives a 500 or a
traceback: malformed JSON, wrong types, huge numbers, impossible dice, oversize and binary
uploads, unknown names, session ids and jobs, many requests at once.  And the sessions:
unguessable ids, bounded in number and idle time, none seeing another's."""

import random
from concurrent.futures import ThreadPoolExecutor

import httpx2 as httpx
import pytest

from dicesolver.web.calls import NAMES, keywords

from .webserver import running


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running(str(tmp_path_factory.getbasetemp() / "tables")) as url:
        yield url


@pytest.fixture(scope="module")
def http(server):
    with httpx.Client(base_url=server, timeout=120) as c:
        yield c


def calm(r: httpx.Response) -> None:
    """Not a server error, and no traceback or path of ours in what the client sees."""
    assert r.status_code < 500, (r.request.url, r.status_code, r.text[:500])
    for word in ("Traceback", 'File "/', "dicesolver/web/", "site-packages"):
        assert word not in r.text, (r.request.url, r.text[:500])
    if r.request.url.path.startswith("/api/") and r.status_code >= 400:
        body = r.json()
        assert isinstance(body["error"], str) and "\n" not in body["error"]
        assert body["exit_code"] in (2, 3)


BODIES = [
    b"",
    b"{",
    b"[1, 2",
    b"null",
    b"[]",
    b'"advise"',
    b"42",
    b'{"rules": "farkle",}',
    b"\xff\xfe\x00\x01",
    b'{"dice": NaN}',
    b'{"dice": Infinity}',
    b"[" * 100_000 + b"]" * 100_000,
    b'{"a": ' * 5000 + b"1" + b"}" * 5000,
    b'{"turn": 1' + b"0" * 5000 + b"}",
    b'{"rules": "farkle", "rules": "zilch"}',
    '{"rules": "f\u00e4rkle"}'.encode(),
]


@pytest.mark.parametrize("body", BODIES, ids=range(len(BODIES)))
def test_malformed_bodies(http, body):
    for name in ("advise", "review", "yahtzee_advise", "jobs"):
        calm(http.post(f"/api/{name}", content=body, headers={"content-type": "application/json"}))


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


@pytest.mark.parametrize("body", WRONG + HUGE + DICE, ids=range(len(WRONG + HUGE + DICE)))
def test_wrong_types_huge_numbers_impossible_dice(http, body):
    for name in NAMES:
        calm(http.post(f"/api/{name}", json=body))


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


def test_unknown_names_and_methods(http):
    for path in (
        "/api/nope",
        "/api/__init__",
        "/api/play_game",
        "/api/simulate",
        "/api/export",
        "/api/verify",
        "/api/Advise",
        "/api/advise%00",
        "/api/",
        "/api/jobs/nope",
        "/api/..%2F..%2Fetc%2Fpasswd",
    ):
        calm(http.post(path, json={}))
        calm(http.get(path))
    for path in ("/nope", "/static/../app.py", "/static/%2e%2e/app.py", "/jobs/nope", "/roll/x"):
        r = http.get(path)
        calm(r)
        assert "def create_app" not in r.text


def test_oversize_bodies_are_refused(http):
    big = b"{" + b" " * (6 << 20) + b"}"
    r = http.post("/api/advise", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413
    calm(r)
    r = http.post("/api/advise", json={"rules_text": "x" * ((1 << 20) + 1)})
    assert r.status_code == 400
    calm(r)
    r = http.post("/review", files={"log_file": ("big.jsonl", b"x" * (6 << 20))}, data={"ask": "1"})
    assert r.status_code == 413
    calm(r)


def _chunks():
    for _ in range(7):
        yield b" " * (1 << 20)


def test_a_body_without_length_is_counted_as_it_comes(http):
    r = http.post("/api/advise", content=_chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413
    calm(r)


def test_binary_uploads(http):
    junk = bytes(range(256)) * 64
    for field, path in (("log_file", "/review"), ("rules_file", "/rules")):
        r = http.post(path, files={field: ("x.bin", junk)}, data={"ask": "1"})
        calm(r)
        assert r.status_code == 200 and "not UTF-8 text" in r.text
    r = http.post("/api/review", json={"log_text": junk.decode("latin-1")})
    calm(r)
    r = http.post("/api/advise", json={"rules_text": "\x00\x01 = 2"})
    calm(r)
    r = http.post("/api/advise", json={"rules_text": "[a]\n" * 10_000})
    calm(r)
    r = http.post("/api/advise", json={"rules_text": "a = " + "[" * 10_000})
    calm(r)
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
    r = http.post(
        "/review",
        content=b"--x\r\nbroken",
        headers={"content-type": "multipart/form-data; boundary=x"},
    )
    calm(r)


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
