"""Issue 27: `zilch serve` prints its address; on loopback by default, and with another
--host a warning, the address the phones open and its QR code; it serves the pages."""

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx2 as httpx

from dicesolver.web import serve

from .clirun import zilch
from .webserver import free_port


def test_loopback_prints_its_address_only():
    said = []
    url = serve.announce("127.0.0.1", 8000, said.append)
    assert url == "http://127.0.0.1:8000/"
    assert len(said) == 1 and "http://127.0.0.1:8000/" in said[0] and "warning" not in said[0]
    assert serve.loopback("localhost") and serve.loopback("::1") and serve.loopback("127.0.0.5")
    assert not serve.loopback("0.0.0.0") and not serve.loopback("192.168.1.20")


def test_a_lan_host_prints_a_warning_the_lan_address_and_its_qr_code(monkeypatch):
    monkeypatch.setattr(serve, "lan_address", lambda: "192.168.1.20")
    said = []
    url = serve.announce("0.0.0.0", 8080, said.append)
    assert url == "http://192.168.1.20:8080/"
    assert said[0].startswith("warning:")
    assert "http://192.168.1.20:8080/" in said[1]
    qr = said[2]
    assert qr == serve.qr_text(url) and len(qr.splitlines()) > 10


def test_the_qr_code_reads_back_as_the_address():
    """The terminal's QR code, read back from its block characters (two module rows a
    line), is segno's symbol of the URL with its quiet border (light modules drawn)."""
    import segno

    url = "http://192.168.1.20:8000/"
    rows = []
    for line in serve.qr_text(url).splitlines():
        rows.append([ch in "\u2580\u2588" for ch in line])  # upper half drawn
        rows.append([ch in "\u2584\u2588" for ch in line])  # lower half drawn
    symbol = segno.make(url, error="m").matrix
    n = len(symbol) + 4
    padded = [[0] * n] * 2 + [[0, 0, *r, 0, 0] for r in symbol] + [[0] * n] * 2
    drawn = [r[:n] for r in rows[:n]]
    assert drawn == [[not x for x in r] for r in padded]


def test_serve_help():
    out = zilch("serve", "--help").stdout
    assert "--host" in out and "--port" in out and "--tables" in out and "--open" in out


def test_zilch_serve_serves_the_pages(tmp_path):
    port = free_port()
    exe = Path(sys.executable).parent / "zilch"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "dicesolver"]
    env = dict(os.environ, DICESOLVER_TABLES=str(tmp_path))
    proc = subprocess.Popen(
        [*cmd, "serve", "--port", str(port), "--tables", str(tmp_path / "t")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/", timeout=5)
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
                time.sleep(0.2)
        assert r.status_code == 200 and "Should I roll?" in r.text
        r = httpx.post(
            f"http://127.0.0.1:{port}/api/advise", json={"rules": "farkle", "dice": 3, "turn": 400}
        )
        assert r.json()["action"] == "roll"
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
    assert f"http://127.0.0.1:{port}/" in out
