"""`airlock-watcher serve` started as a real subprocess, and plain HTTP to it (http.client), for the serve tests."""

from __future__ import annotations

import http.client
import json
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse


@dataclass
class Served:
    proc: subprocess.Popen
    url: str
    port: int
    host: str = "127.0.0.1"
    cookie: str | None = None
    csrf: str | None = None
    extra: dict = field(default_factory=dict)

    @property
    def token(self) -> str:
        return urlparse(self.url).query.removeprefix("token=")

    @property
    def authority(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    @property
    def origin(self) -> str:
        return f"http://{self.authority}"

    def request(self, method, path, body=None, headers=None, cookie=True):
        """One request; returns (status, headers as a dict of lower-case names, body bytes)."""
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        sent = {"Host": self.authority}
        if cookie and self.cookie:
            sent["Cookie"] = self.cookie
        sent.update(headers or {})
        data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
        if data is not None and "Content-Type" not in sent:
            sent["Content-Type"] = "application/json"
        conn.request(method, path, body=data, headers=sent)
        response = conn.getresponse()
        payload = response.read()
        found = {k.lower(): v for k, v in response.getheaders()}
        conn.close()
        return response.status, found, payload

    def login(self):
        """Exchanges the URL's token for the session cookie, and reads the CSRF token."""
        status, headers, _ = self.request("GET", f"/?token={self.token}", cookie=False)
        assert status == 303, status
        self.cookie = headers["set-cookie"].split(";")[0]
        status, _, body = self.request("GET", "/api/session")
        assert status == 200
        self.csrf = json.loads(body)["csrf"]
        return self

    def post(self, path, body):
        """A POST as the page makes it: from this origin, with the CSRF token."""
        return self.request("POST", path, body, headers={"Origin": self.origin, "X-Airlock-CSRF": self.csrf})

    def get_json(self, path):
        status, _, body = self.request("GET", path)
        assert status == 200, (status, body)
        return json.loads(body)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def start_serve(bin_dir: Path, env: dict, *args: str) -> Served:
    """Starts `airlock-watcher serve --json ARGS` and waits for its one line {"url", "port"}."""
    proc = subprocess.Popen(
        [str(bin_dir / "airlock-watcher"), "serve", "--json", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.time() + 30
    text = b""
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        text += line
        try:
            started = json.loads(text)
            break
        except json.JSONDecodeError:
            continue
    else:
        proc.kill()
        raise AssertionError("serve did not print its URL")
    if not text:
        err = proc.stderr.read().decode(errors="replace")
        raise AssertionError(f"serve exited {proc.wait()}: {err}")
    host = urlparse(started["url"]).hostname
    return Served(proc=proc, url=started["url"], port=started["port"], host=host if ":" not in host else "::1")
