"""`airlock-watcher serve`'s guard (issue 29 item 2), over real HTTP to the real server: each attack beside a
control that succeeds. The server is the built binary started as a subprocess; requests are http.client's."""

from __future__ import annotations

import re
import subprocess

import pytest
from serve_helpers import start_serve

SECURITY_HEADERS = ("content-security-policy", "x-frame-options", "x-content-type-options")


@pytest.fixture
def served(bin_dir, home):
    server = start_serve(bin_dir, home.env)
    yield server
    server.stop()


def assert_guarded(headers):
    csp = headers["content-security-policy"]
    assert csp.startswith("default-src 'self'"), csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert headers["x-frame-options"] == "DENY"
    assert headers["x-content-type-options"] == "nosniff"


def test_without_the_token_401_with_it_a_strict_cookie(served):
    for path in ("/", "/api/overview", "/app.js", "/api/wallets"):
        status, _, body = served.request("GET", path, cookie=False)
        assert status == 401, path
        assert b"open the URL" in body
    status, _, _ = served.request("GET", "/?token=" + "0" * 64, cookie=False)
    assert status == 401
    status, _, _ = served.request("GET", "/api/overview", cookie=False, headers={"Cookie": "airlock_session=guess"})
    assert status == 401
    # Control: the printed token logs in; the cookie is HttpOnly and SameSite=Strict; then the pages load.
    status, headers, _ = served.request("GET", f"/?token={served.token}", cookie=False)
    assert status == 303 and headers["location"] == "/"
    cookie = headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    served.cookie = cookie.split(";")[0]
    assert served.request("GET", "/api/overview")[0] == 200
    assert served.request("GET", "/")[0] == 200


def test_another_host_is_refused(served):
    served.login()
    for host in ("evil.example", f"evil.example:{served.port}", f"127.0.0.1:{served.port + 1}", "127.0.0.1"):
        status, headers, _ = served.request("GET", "/api/overview", headers={"Host": host})
        assert status in (403, 421), host
        assert_guarded(headers)
    # Controls: the loopback address and localhost, with the port.
    for host in (f"127.0.0.1:{served.port}", f"localhost:{served.port}"):
        assert served.request("GET", "/api/overview", headers={"Host": host})[0] == 200, host


def test_cross_origin_post_is_refused(served):
    served.login()
    refused = [
        {"Origin": "http://evil.example", "X-Airlock-CSRF": served.csrf},
        {"Origin": f"http://evil.example:{served.port}", "X-Airlock-CSRF": served.csrf},
        {"X-Airlock-CSRF": served.csrf},
        {"Origin": served.origin},
        {"Origin": served.origin, "X-Airlock-CSRF": "0" * 64},
        {"Origin": "null", "X-Airlock-CSRF": served.csrf},
    ]
    for headers in refused:
        status, found, _ = served.request("POST", "/api/scan/new", {}, headers=headers)
        assert status == 403, headers
        assert_guarded(found)
    # Control: the page's own POST (same origin, CSRF token).
    status, _, body = served.post("/api/scan/new", {})
    assert status == 200 and b'"scan"' in body


def test_every_response_carries_the_security_headers(served):
    responses = [served.request("GET", "/", cookie=False), served.request("GET", "/", headers={"Host": "evil"})]
    served.login()
    for path in ("/", "/app.js", "/app.css", "/api/overview", "/api/session", "/api/nodes", "/nowhere"):
        responses.append(served.request("GET", path))
    responses.append(served.request("POST", "/api/scan/new", {}, headers={"Origin": "http://evil.example"}))
    responses.append(served.post("/api/labels", {"wallet": "nobody", "type": "tx", "ref": "00", "label": "x"}))
    statuses = {status for status, _, _ in responses}
    assert {200, 401, 403, 404, 421} <= statuses | {400}, statuses
    for _, headers, _ in responses:
        assert_guarded(headers)
    # No inline script in the page: every <script> has a src, and no element has an on… attribute.
    _, _, html = served.request("GET", "/")
    page = html.decode()
    assert re.findall(r"<script\b[^>]*>", page) == ['<script src="/app.js" defer>']
    assert not re.search(r"\son[a-z]+\s*=", page)
    # The script renders values as text: it never assigns markup.
    _, _, script = served.request("GET", "/app.js")
    assert b"innerHTML" not in script and b"outerHTML" not in script and b"insertAdjacentHTML" not in script
    assert b"document.write" not in script and b"eval(" not in script


@pytest.mark.parametrize("address", ["0.0.0.0", "192.168.1.10", "::", "example.com", "127.0.0.2"])
def test_a_non_loopback_listen_is_refused(bin_dir, home, address):
    proc = subprocess.run(
        [str(bin_dir / "airlock-watcher"), "serve", "--listen", address],
        env=home.env,
        capture_output=True,
        timeout=30,
    )
    assert proc.returncode == 1
    err = proc.stderr.decode()
    assert f"--listen {address} is refused" in err and "loopback" in err
    assert proc.stdout == b""


@pytest.mark.parametrize("address", ["127.0.0.1", "localhost", "::1"])
def test_a_loopback_listen_serves(bin_dir, home, address):
    """The control: the loopback addresses are served."""
    server = start_serve(bin_dir, home.env, "--listen", address)
    try:
        assert server.url.startswith("http://[::1]:" if address == "::1" else "http://127.0.0.1:")
        assert server.request("GET", "/", cookie=False)[0] == 401
        server.login()
        assert server.request("GET", "/api/overview")[0] == 200
    finally:
        server.stop()


def test_read_only_serves_pages_without_changes(bin_dir, home):
    server = start_serve(bin_dir, home.env, "--read-only").login()
    try:
        assert server.get_json("/api/session")["read_only"] is True
        assert server.request("GET", "/api/overview")[0] == 200
        for path, body in [
            ("/api/labels", {"type": "tx", "ref": "00", "label": "x"}),
            ("/api/send", {"recipients": []}),
            ("/api/broadcast", {"scans": []}),
            ("/api/wallets/delete", {"name": "w"}),
            ("/api/nodes", {"url": "electrum://127.0.0.1:1"}),
            ("/api/sync", {}),
        ]:
            status, _, text = server.post(path, body)
            assert status == 403 and b"read-only" in text, path
        # Control: scanning (reading) still works.
        assert server.post("/api/scan/new", {})[0] == 200
    finally:
        server.stop()
