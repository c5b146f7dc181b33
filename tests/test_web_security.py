"""Issue 36, items 5-8 and 16: other sites and other host names.  Against a real `zilch
serve` process (and `uvicorn dicesolver.web:app`) where the issue asks for HTTP: a page of
another site changes nothing (403 by its Origin or Referer, forms carry a token, the JSON
endpoints take application/json only: 415); only the host names the server serves are
answered (DNS rebinding), --allow-host adds one, `--host 127.0.0.2` answers at the address
it prints; `?back=` never leads off the site; no keyword of any API name opens a path on
the server, and no answer shows a temporary path; the /rules form takes a rule file of at
most 1 MB, as the command line."""

import contextlib
import html
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import httpx2 as httpx
import pytest

import dicesolver as ds
from dicesolver.web.calls import NAMES, TEXTS, _safe_name, keywords
from dicesolver.web.serve import lan_address, loopback

from .test_web_hostile import calm, with_token
from .webserver import free_port, server_process, zilch_command

EVIL = "http://evil.example"
POLICY = 'name = "three-hundred"\n\n[bank]\ndefault = 300\n'
FARKLE = (Path(ds.__file__).parent / "rulesets" / "farkle.toml").read_text()


@contextlib.contextmanager
def process(cmd: list[str], url: str, tables: str, env: dict[str, str] | None = None):
    """A server process (`zilch serve ...`, uvicorn) over `tables` until the block ends: its
    output then in the list yielded (stdout, stderr)."""
    with server_process(cmd, url, dict(env or {}, DICESOLVER_TABLES=tables)) as served:
        yield served.output


@contextlib.contextmanager
def zilch_serve(tables: str, *args: str, host: str = "127.0.0.1", connect: str | None = None):
    """`zilch serve --host HOST ARGS` on a free port: (its address as reached, the port,
    its output once the block ends)."""
    port = free_port()
    url = f"http://{connect or host}:{port}"
    cmd = [
        *zilch_command(),
        "serve",
        "--host",
        host,
        "--port",
        str(port),
        "--tables",
        tables,
        *args,
    ]
    with process(cmd, url, tables) as said:
        yield url, port, said


@pytest.fixture(scope="module")
def served_tables(tmp_path_factory):
    return tmp_path_factory.mktemp("security") / "tables"


@pytest.fixture(scope="module")
def served(served_tables):
    """One `zilch serve` process on loopback (its own tables folder)."""
    with zilch_serve(str(served_tables)) as (url, _, _):
        yield url


@pytest.fixture
def browser_client(served):
    """A browser that opened a page: its cookie and its token."""
    with httpx.Client(base_url=served, timeout=120) as c:
        yield with_token(c)


def token_of(r: httpx.Response) -> str:
    return re.search(r'name="csrf-token" content="(\w+)"', r.text).group(1)


# --- item 5: cross-site requests, CSRF, JSON content type ----------------------------------
GAME = {"rules": "farkle", "target": 600}  # (its game table: not stored in `served`)


def test_item5_another_sites_page_cannot_start_a_build(served, served_tables):
    """The attack of item 5: another origin's `fetch(..., {mode: "no-cors"})` (Origin:
    the other site, text/plain) and a plain HTML form with enctype="text/plain" POST
    /api/jobs: refused, and no build runs."""
    body = json.dumps({"name": "game", "kwargs": GAME})
    for headers, status in [
        ({"origin": EVIL, "content-type": "text/plain;charset=UTF-8"}, 403),  # no-cors fetch
        ({"origin": EVIL, "content-type": "application/json"}, 403),
        ({"origin": "null", "content-type": "text/plain"}, 403),  # a sandboxed frame
        ({"referer": EVIL + "/attack.html", "content-type": "text/plain"}, 403),
        ({"sec-fetch-site": "cross-site", "content-type": "application/json"}, 403),
        ({"content-type": "text/plain"}, 415),  # (a form of enctype text/plain, no Origin)
        ({"content-type": "application/x-www-form-urlencoded"}, 415),
    ]:
        r = httpx.post(served + "/api/jobs", content=body, headers=headers)
        calm(r)
        assert r.status_code == status, (headers, r.text)
        assert "another site" in r.json()["error"] or "application/json" in r.json()["error"]
    time.sleep(0.5)  # (a build started would have its lock or its table by now)
    built = [p.name for p in served_tables.glob("*game600*")] if served_tables.exists() else []
    assert built == []
    r = httpx.post(served + "/api/game", json=GAME, timeout=60)
    assert r.status_code == 409, r.text  # not stored: nothing was built


def test_item5_every_state_changing_route_refuses_a_foreign_origin(served, tmp_path):
    """Every route that takes a POST (the JSON API, uploads, builds, game set-up and
    moves, the screens' forms), from another site: 403 before anything is read."""
    from dicesolver.web import create_app

    posts = []
    for route in create_app(str(tmp_path)).routes:
        methods = getattr(route, "methods", None) or set()
        if "POST" in methods:
            posts.append(route.path.replace("{name}", "advise").replace("{game}", "x" * 22))
    assert {"/api/jobs", "/api/{name}".replace("{name}", "advise"), "/rules", "/build"} <= set(
        posts
    )
    assert "/play/setup" in posts and any(p.startswith("/play/g/") for p in posts)
    for path in posts:
        for headers in (
            {"origin": EVIL},
            {"origin": "http://127.0.0.1:1"},  # (another port: another origin)
            {"referer": "http://attacker.example/page"},
        ):
            r = httpx.post(served + path, data={"do": "roll"}, headers=headers)
            calm(r)
            assert r.status_code == 403 and "another site" in r.text, (path, headers, r.text)
    for method in ("PUT", "DELETE", "PATCH"):  # (no route takes them: still refused first)
        r = httpx.request(method, served + "/api/jobs", headers={"origin": EVIL})
        assert r.status_code == 403


def test_item5_this_sites_own_origin_is_served(served, browser_client):
    port = served.rsplit(":", 1)[1]
    for origin in (served, f"http://localhost:{port}"):
        host = origin.split("//")[1]
        r = httpx.post(
            served + "/api/advise",
            json={"rules": "farkle", "dice": 3, "turn": 400},
            headers={"origin": origin, "host": host},
        )
        assert r.status_code == 200 and r.json()["action"] == "roll", r.text
    r = browser_client.post(
        "/roll",
        data={"ask": "1", "rules": "farkle", "dice": "3", "turn": "400"},
        headers={"origin": served, "referer": served + "/roll"},
    )
    assert r.status_code == 200 and "ROLL" in r.text


def test_item5_forms_carry_a_token_and_a_post_without_it_is_refused(served):
    """Every page's POST form has the token (the page's meta token); a form posted without
    it, with a forged one or with another browser's is 403 and does nothing; with it, it
    is answered."""
    with httpx.Client(base_url=served, timeout=120) as c, httpx.Client(base_url=served) as d:
        for path in ("/roll", "/dice", "/review", "/rules", "/yahtzee", "/play/setup"):
            r = c.get(path)
            forms = re.findall(r'<form method="post".*?</form>', r.text, re.S)
            assert forms, path
            for form in forms:
                got = re.search(r'name="csrf" value="(\w+)"', form)
                assert got and got.group(1) == token_of(r), (path, form[:200])
        mine, theirs = token_of(c.get("/")), token_of(d.get("/"))
        assert mine != theirs
        posts = [
            ("/roll", {"ask": "1", "rules": "farkle", "dice": "3", "turn": "400"}, "ROLL"),
            ("/play/setup", {"mode": "hotseat", "name1": "A", "name2": "B"}, None),
            ("/rules", {"rules_text": FARKLE.replace('name = "farkle"', 'name = "ours"')}, None),
            ("/build", {"token": "forged"}, "this offer has expired"),
            ("/review", {"ask": "1", "log_text": "{}"}, None),
            ("/yahtzee", {"ask": "1"}, None),
            ("/dice", {"ask": "1", "roll": "1,5"}, None),
            ("/card", {"rules": "farkle"}, None),
        ]
        for path, data, answered in posts:
            for token in (None, "", "0" * 40, theirs, mine.upper()):
                sent = data if token is None else dict(data, csrf=token)
                r = c.post(path, data=sent)
                calm(r)
                assert r.status_code == 403 and "reload the page" in html.unescape(r.text), (
                    path,
                    token,
                )
            r = c.post(path, data=dict(data, csrf=mine))
            calm(r)
            assert r.status_code in (200, 303, 400, 409), (path, r.status_code)
            if answered:
                assert answered in r.text
        assert "ours (uploaded)" in c.get("/roll").text  # (the upload with the token only)
        # a game's moves: the token too
        r = c.post(
            "/play/setup", data={"mode": "hotseat", "name1": "A", "name2": "B", "csrf": mine}
        )
        game = r.headers["location"]
        r = c.post(game, data={"do": "roll", "at": "0"})
        assert r.status_code == 403
        r = c.get(game)
        assert 'data-version="0"' in r.text  # (nothing applied)
        r = c.post(game, data={"do": "roll", "at": "0", "csrf": mine})
        assert r.status_code == 303
        assert 'data-version="1"' in c.get(game).text
        # the header a script sends instead of the field
        r = c.post(game, data={"do": "hint", "at": "1"}, headers={"x-csrf-token": mine})
        assert r.status_code == 303


def test_item5_the_token_cookie_is_http_only_and_this_sites(served):
    r = httpx.get(served + "/")
    cookie = r.headers["set-cookie"]
    assert cookie.startswith("dicesolver_csrf=") and "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie and "Path=/" in cookie
    # (under no-referrer a browser sends "Origin: null" with this site's own forms)
    assert r.headers["referrer-policy"] == "same-origin"
    assert "set-cookie" not in httpx.post(served + "/api/odds", json={"dice": 6}).headers


def test_item5_json_endpoints_take_application_json_only(served):
    body = json.dumps({"rules": "farkle", "dice": 3, "turn": 400})
    for name in (*NAMES, "jobs"):
        for kind in (
            "text/plain",
            "text/plain;charset=UTF-8",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "application/jsonx",
            "text/json",
        ):
            r = httpx.post(f"{served}/api/{name}", content=body, headers={"content-type": kind})
            calm(r)
            assert r.status_code == 415, (name, kind, r.text)
            assert "Content-Type: application/json" in r.json()["error"]
        r = httpx.post(f"{served}/api/{name}", content=body)  # (no type at all)
        assert r.status_code == 415
    for kind in ("application/json", "application/json; charset=utf-8", "Application/JSON"):
        r = httpx.post(f"{served}/api/advise", content=body, headers={"content-type": kind})
        assert r.status_code == 200, (kind, r.text)
    r = httpx.post(f"{served}/api/describe_rules")  # (no body: {} as before)
    assert r.status_code == 200


# --- item 6: DNS rebinding, --allow-host, --host 127.0.0.2 ---------------------------------
REBIND = "rebind.attacker.example"


def _get(url: str, host: str | None = None) -> httpx.Response:
    return httpx.get(url + "/", headers={} if host is None else {"host": host}, timeout=30)


def test_item6_host_127_0_0_2_answers_at_the_address_it_prints(tmp_path):
    with zilch_serve(str(tmp_path / "t"), host="127.0.0.2") as (url, port, said):
        r = _get(url)
        assert r.status_code == 200 and "Should I roll?" in r.text
        assert _get(url, REBIND).status_code == 400
    assert f"http://127.0.0.2:{port}/" in said[0]


def test_item6_a_lan_host_answers_its_names_only(tmp_path):
    """`zilch serve --host <LAN IP> --allow-host table.lan`: the LAN address it prints,
    loopback (the machine itself) and table.lan answer; a rebinding page's name does not,
    nor any other."""
    lan = lan_address()
    if lan is None or loopback(lan):
        pytest.skip("no LAN address on this machine")
    args = ("--allow-host", "table.lan", "--allow-host", "Other.Example")
    with zilch_serve(str(tmp_path / "t"), *args, host=lan) as (url, port, said):
        for host, status in [
            (None, 200),
            (f"{lan}:{port}", 200),
            (f"table.lan:{port}", 200),
            ("TABLE.LAN", 200),
            ("other.example", 200),
            (f"{REBIND}:{port}", 400),
            (REBIND, 400),
            (f"table.lan.{REBIND}", 400),
            (f"{lan}.nip.io", 400),
            ("", 400),
            ("a b", 400),
        ]:
            r = _get(url, host)
            assert r.status_code == status, (host, r.text)
            if status == 400:
                assert "does not answer to the host name" in r.text
        r = httpx.post(
            url + "/api/jobs",
            json={"name": "game", "kwargs": GAME},
            headers={"host": REBIND},
        )
        assert r.status_code == 400 and "host name" in r.json()["error"]
    assert f"http://{lan}:{port}/" in said[0]


def test_item6_every_interface_answers_its_addresses_not_other_names(tmp_path):
    """`--host 0.0.0.0`: each address a phone reaches it at answers (loopback here), a
    rebinding name does not."""
    with zilch_serve(str(tmp_path / "t"), host="0.0.0.0", connect="127.0.0.1") as (url, _, _):
        assert _get(url).status_code == 200
        assert _get(url, REBIND).status_code == 400
        lan = lan_address()
        if lan is not None and not loopback(lan):
            reached = url.replace("127.0.0.1", lan)
            assert _get(reached).status_code == 200
            assert _get(reached, REBIND).status_code == 400


def test_item6_allow_host_takes_a_host_name_only():
    for bad in ("http://table.lan", "table.lan:8000", "*", "a/b", "a b", ""):
        r = subprocess.run(
            [*zilch_command(), "serve", "--allow-host", bad, "--port", "1"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert r.returncode == 2 and "--allow-host" in r.stderr, (bad, r.stderr)
    from dicesolver.web.origin import checked_name

    assert checked_name("Table.LAN") == "table.lan" and checked_name("[::1]") == "::1"
    assert checked_name("192.168.1.20") == "192.168.1.20"


def test_item6_the_asgi_app_checks_host_names_itself(tmp_path):
    """`uvicorn dicesolver.web:app` (the documented way under another ASGI server): the
    app refuses a rebinding name itself; $DICESOLVER_ALLOW_HOST adds names."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-m", "uvicorn", "dicesolver.web:app", "--port", str(port)]
    env = {"DICESOLVER_ALLOW_HOST": "table.lan, dice.home"}
    with process(cmd, url, str(tmp_path / "t"), env):
        assert _get(url).status_code == 200
        assert _get(url, f"localhost:{port}").status_code == 200
        assert _get(url, "table.lan").status_code == 200
        assert _get(url, "dice.home:80").status_code == 200
        r = _get(url, REBIND)
        assert r.status_code == 400 and "host name" in r.text


def test_item6_the_app_alone_refuses_other_host_names(tmp_path, monkeypatch):
    """create_app() with no names (any ASGI server): loopback names and addresses, the
    address the request reached, the names given; nothing else."""
    from starlette.testclient import TestClient

    from dicesolver.web import create_app

    monkeypatch.delenv("DICESOLVER_ALLOW_HOST", raising=False)
    c = TestClient(create_app(str(tmp_path), ["table.lan"]))
    for host, status in [
        ("testserver", 200),  # (the address this request reached: the test client's)
        ("localhost:8000", 200),
        ("127.0.0.1", 200),
        ("127.0.0.2:9000", 200),
        ("[::1]:8000", 200),
        ("table.lan", 200),
        (REBIND, 400),
        ("localhost.attacker.example", 400),
        ("127.0.0.1.nip.io", 400),
        ("user@localhost", 400),
        ("localhost:notaport", 400),
    ]:
        r = c.get("/static/die.svg", headers={"host": host})
        assert r.status_code == status, (host, r.text)


# --- item 7: the open redirect -------------------------------------------------------------
def test_item7_back_never_leaves_the_site(served):
    """A build's page links "Show the answer" to ?back= only where it is a page of this
    server; every other value (item 7's /%5Cevil..., which browsers read as //evil...)
    leads to the start page."""
    question = {"rules": "farkle", "target": 450}  # (not item 5's: its build is never started)
    r = httpx.post(served + "/api/jobs", json={"name": "game", "kwargs": question}, timeout=60)
    assert r.status_code in (200, 202), r.text
    job = r.json().get("id")
    assert job, r.text
    for query, want in [
        ("/%5Cevil.example/x.html", "/"),  # (item 7's, as it was sent)
        ("//evil.example/x.html", "/"),
        ("/%09/evil.example", "/"),
        ("/%0A/evil.example", "/"),
        *((quote(back, safe=""), "/") for back in OFF_SITE),
        (quote("/roll?rules=farkle&dice=3&ask=1", safe=""), "/roll?rules=farkle&dice=3&ask=1"),
        (quote("/play/setup?mode=computer", safe=""), "/play/setup?mode=computer"),
        ("/", "/"),
    ]:
        r = httpx.get(f"{served}/jobs/{job}?back={query}")
        calm(r)
        assert r.status_code == 200
        link = re.search(r'href="([^"]*)" data-job-back', r.text)
        assert link and html.unescape(link.group(1)) == want, (query, link and link.group(1))


OFF_SITE = [  # each leads off the site in some browser (or nowhere of this server)
    "/\\evil.example/x.html",
    "/\\\\evil.example",
    "\\\\evil.example",
    "/\\/evil.example",
    "//evil.example",
    "///evil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    " //evil.example",
    "https://evil.example/",
    "http:/evil.example",
    "javascript:alert(1)",
    "data:text/html,x",
    "%2F%2Fevil.example",
    "/nowhere",
    "/roll\\",
    "/roll#x",
    "/rol\u00e9",
]


def test_item7_local_path():
    from dicesolver.web.screens import local_path

    for bad in OFF_SITE:
        assert local_path(bad) == "/", bad
    assert local_path("/dice?roll=1%2C5&ask=1") == "/dice?roll=1%2C5&ask=1"


# --- item 8: no path on the server ---------------------------------------------------------
@pytest.fixture(scope="module")
def server_files(tmp_path_factory):
    """Files on the server a request might name: a valid policy, a valid rule file, a
    valid log, a folder; and names beside them that do not exist."""
    root = tmp_path_factory.mktemp("server-side")
    (root / "policy.toml").write_text(POLICY)
    (root / "rules.toml").write_text(FARKLE)
    tables = str(tmp_path_factory.mktemp("tables"))
    ds.simulate("farkle", turns=5, seed=1, log=str(root / "log.jsonl"), tables=tables)
    (root / "folder").mkdir()
    return root


def test_item8_vs_and_policy_take_uploaded_text_only(served, server_files):
    """Item 8's case: POST /api/game with vs naming /etc/passwd, /proc/self/environ, a
    folder, or a valid policy file on the server: each refused with the same line (it
    says nothing of the path: whether it exists, its syntax, its keys), and no answer is
    evaluated.  The file's text as vs_text is the way (and names no path)."""
    lines = set()
    for path in (
        "/etc/passwd",
        "/proc/self/environ",
        "/",
        str(server_files / "policy.toml"),
        str(server_files / "folder"),
        str(server_files / "missing.toml"),
        "policy.toml",
    ):
        for key in ("vs", "policy"):
            r = httpx.post(served + "/api/game", json=dict(GAME, target=500, **{key: path}))
            calm(r)
            assert r.status_code == 400, (key, path, r.text)
            lines.add(r.json()["error"].replace(key, "KEY"))
            assert "root:" not in r.text and "[bank]" not in r.text
    assert len(lines) == 1, lines
    r = httpx.post(
        served + "/api/game",
        json={"rules": "farkle", "target": 500, "policy": "points", "vs_text": POLICY},
        timeout=120,
    )
    assert r.status_code == 200 and r.json()["vs"] == "three-hundred", r.text
    assert str(server_files) not in r.text and "/tmp" not in r.text


def test_item8_evaluate_shows_the_uploads_name_not_a_temporary_path(served):
    r = httpx.post(
        served + "/api/evaluate", json={"rules": "farkle", "policy_text": POLICY}, timeout=120
    )
    assert r.status_code == 200, r.text
    assert r.json()["policy"] == "uploaded-policy.toml"
    assert "/tmp" not in r.text and "dicesolver-web-" not in r.text
    r = httpx.post(
        served + "/api/evaluate", json={"rules": "farkle", "policy_text": "[bank]\nx = 1\n"}
    )
    assert r.status_code == 400 and "uploaded-policy.toml" in r.json()["error"]
    assert "/tmp" not in r.text and "dicesolver-web-" not in r.text


# a body each name answers (a question that reaches its work), to which a keyword is added
BASES = {
    "advise": {"rules": "farkle", "dice": 3, "turn": 400},
    "strategy": {"rules": "farkle"},
    "odds": {"rules": "farkle", "dice": 3},
    "endgame": {"rules": "farkle", "deficit": 500},
    "game": {"rules": "farkle", "target": 500},
    "evaluate": {"rules": "farkle"},
    "yahtzee_advise": {"dice": [1, 2, 3, 4, 5]},
    "yahtzee_value": {},
    "review": {"rules": "farkle"},  # (+ the log's text)
    "yahtzee_review": {},
    "describe_rules": {},
    "yahtzee_rules": {},
}


def _pathless(text: str, root: str) -> str:
    """An answer with the path a request gave (whole, cut short, or as a file name) left out."""
    for p in (root, _safe_name(root, "")):
        text = re.sub(re.escape(p[:12]) + r"[^'\"\s]*", "PATH", text)
    # a value quoted whole ('PATH') or cut short ('PATH (65 characters)', its "..." read as
    # the path's) depends on the temporary folder's length only
    return re.sub(r"'PATH(?: \(\d+ characters\)|')", "'PATH'", text)


OPENED: list[str] = []  # what the audit hook saw opened under WATCHED while armed
WATCHED: list[str] = []


def _audit(event: str, args: tuple) -> None:
    if WATCHED and event in ("open", "os.listdir", "os.scandir") and args:
        path = args[0]
        if isinstance(path, (str, bytes, os.PathLike)) and WATCHED[0] in os.fsdecode(path):
            OPENED.append(f"{event} {os.fsdecode(path)}")


def _walk(tmp_path, server_files, existing, bases, shapes) -> int:
    """Every API name, every keyword it takes (its signature's, and the uploads' names)
    given each path: no file or folder under server_files opened (an audit hook sees
    every open), and the same answer whether the path exists or not.  The requests."""
    from starlette.testclient import TestClient

    from dicesolver.web import create_app

    root = str(server_files)
    if _audit not in AUDITING:
        sys.addaudithook(_audit)
        AUDITING.append(_audit)
    log_text = (server_files / "log.jsonl").read_text()
    c = TestClient(create_app(str(tmp_path / "tables")))
    asked = 0
    OPENED.clear()
    WATCHED[:] = [root]
    try:
        open(server_files / "policy.toml").close()  # (the hook sees an open: it works)
        assert OPENED, "the audit hook sees no open"
        OPENED.clear()
        for name in NAMES:
            keys = [*keywords(name), *(k for k in TEXTS.get(name, ()) if not k.endswith("_text"))]
            for key in keys:
                for base in bases(name):
                    if name == "review" and base:
                        base = dict(base, log_text=log_text)
                    for there in existing:
                        for shape in shapes:
                            answers = []
                            for path in (f"{root}/{there}", f"{root}/nothing-{there}"):
                                r = c.post(f"/api/{name}", json={**base, key: shape(path)})
                                asked += 1
                                assert r.status_code < 500, (name, key, r.text)
                                answers.append(_pathless(r.text, root))
                            assert answers[0] == answers[1], (name, key, there, answers)
    finally:
        WATCHED.clear()
    assert not OPENED, OPENED[:5]
    return asked


AUDITING: list = []
AS_LIST = lambda p: [p]  # noqa: E731


def test_item8_no_keyword_of_any_api_name_opens_a_server_path(tmp_path, server_files):
    """Every API name's every keyword, given a valid policy file and a folder on the server
    (as a string and in a list, added to a question that is answered): none opens it, and
    nothing tells whether it is there (the whole walk: the slow test below)."""
    asked = _walk(
        tmp_path, server_files, ["policy.toml", "folder"], lambda n: [BASES[n]], (str, AS_LIST)
    )
    assert asked > 250


@pytest.mark.slow
def test_item8_no_keyword_opens_any_server_path_alone_or_in_a_question(tmp_path, server_files):
    """The whole walk: a valid policy, rule file, log and a folder; each keyword alone and
    added to a question that is answered; as a string and in a list."""
    existing = ["policy.toml", "rules.toml", "log.jsonl", "folder"]
    asked = _walk(tmp_path, server_files, existing, lambda n: [{}, BASES[n]], (str, AS_LIST))
    assert asked > 2000


def test_item8_every_file_keyword_is_known():
    """The keywords that name a file on the command line are the ones the web reads as
    uploads: a new one in the API fails here until calls.FILES knows it."""
    from dicesolver.web.calls import FILES

    for name in NAMES:
        for key in keywords(name):
            if key in ("policy", "vs", "log"):
                assert key in FILES
            assert "path" not in key and "file" not in key and "dir" not in key, (name, key)


# --- item 16: /rules takes a rule file of at most 1 MB -------------------------------------
def test_item16_the_rules_form_takes_at_most_1_mb(served, browser_client, tmp_path):
    padded = FARKLE.replace('name = "farkle"', 'name = "big"') + "#" * 3_000_000 + "\n"
    r = browser_client.post("/rules", files={"rules_file": ("big.toml", padded.encode())})
    calm(r)
    assert r.status_code == 400
    line = html.unescape(re.search(r"Cannot answer:</strong> (.*?)</div>", r.text).group(1))
    assert line == (
        f"the rules file big.toml: {len(padded)} bytes, more than such a file can be (1048576)"
    )
    assert "big (uploaded)" not in browser_client.get("/roll").text
    # as the command line says it of the same file
    path = tmp_path / "big.toml"
    path.write_text(padded)
    cli = subprocess.run(
        [*zilch_command(), "strategy", "--rules", str(path)], capture_output=True, text=True
    )
    assert cli.returncode == 2 and "more than such a file can be (1048576)" in cli.stderr
    # just under the limit: taken
    fits = FARKLE.replace('name = "farkle"', 'name = "fits"')
    fits += "#" * ((1 << 20) - len(fits.encode()) - 1) + "\n"
    assert len(fits.encode()) == 1 << 20
    r = browser_client.post("/rules", files={"rules_file": ("fits.toml", fits.encode())})
    assert r.status_code == 303, r.text[:500]
    # pasted: the same limit
    r = browser_client.post("/rules", data={"rules_text": padded[: (1 << 20) + 10]})
    calm(r)
    assert r.status_code == 400 and "exceeded maximum size of 1024KB" in r.text
