"""airlock-watcher through a real SOCKS5 proxy (Debian's `microsocks`, started here on loopback): Electrum (TCP and
TLS), Esplora and Bitcoin Core syncs go through it with the node's host name handed over unresolved, an `.onion` host
reaches the proxy as a name, and with the proxy stopped the watcher fails (exit 5) rather than connecting directly."""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import threading
import time
import uuid

import pytest
from test_watcher_send import SigningAccount, jout, watcher
from watcher_helpers import EsploraAdapter


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Microsocks:
    """`microsocks -i 127.0.0.1 -p PORT`, its log in a file (it logs `client[N] IP: connected to HOST:PORT`)."""

    def __init__(self, log_path):
        assert shutil.which("microsocks"), "microsocks is missing: run scripts/setup"
        self.port = free_port()
        self.log_path = log_path
        self.log = open(log_path, "wb")
        self.proc = subprocess.Popen(
            ["microsocks", "-i", "127.0.0.1", "-p", str(self.port)],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "microsocks did not start"
                time.sleep(0.05)

    @property
    def url(self) -> str:
        return f"socks5h://127.0.0.1:{self.port}"

    def text(self) -> str:
        self.log.flush()
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.log.close()


class SocksTap:
    """A TCP relay in front of the proxy that records the SOCKS5 CONNECT request each client sends (address type and
    host as they reach the proxy) and passes everything through."""

    def __init__(self, upstream_port: int):
        self.upstream_port = upstream_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.requests: list[tuple[int, str, int]] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self.listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._session, args=(client,), daemon=True).start()

    def _session(self, client: socket.socket) -> None:
        upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
        try:
            greeting = client.recv(2)
            greeting += client.recv(greeting[1])
            upstream.sendall(greeting)
            client.sendall(upstream.recv(2))
            head = client.recv(4)
            if head[3] == 3:
                n = client.recv(1)
                rest = n + client.recv(n[0] + 2)
                host = rest[1 : 1 + n[0]].decode()
            else:
                rest = client.recv((4 if head[3] == 1 else 16) + 2)
                host = socket.inet_ntop(socket.AF_INET if head[3] == 1 else socket.AF_INET6, rest[:-2])
            self.requests.append((head[3], host, int.from_bytes(rest[-2:], "big")))
            upstream.sendall(head + rest)

            def pump(a, b):
                try:
                    while chunk := a.recv(65536):
                        b.sendall(chunk)
                except OSError:
                    pass
                finally:
                    b.close()

            threading.Thread(target=pump, args=(upstream, client), daemon=True).start()
            pump(client, upstream)
        except (OSError, IndexError):
            client.close()
            upstream.close()


class TLSRelay:
    """A TLS front for the regtest Electrum server (a self-signed certificate made with openssl), as an electrums://
    server would be."""

    def __init__(self, upstream_port: int, tmp_path):
        key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
        subprocess.run(
            [
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                str(key),
                "-out",
                str(cert),
                "-days",
                "2",
                "-subj",
                "/CN=localhost",
            ],
            check=True,
            capture_output=True,
        )
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(cert, key)
        self.upstream_port = upstream_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.handshakes = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self.listener.close()

    def _accept(self) -> None:
        while True:
            try:
                raw, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._session, args=(raw,), daemon=True).start()

    def _session(self, raw: socket.socket) -> None:
        try:
            client = self.context.wrap_socket(raw, server_side=True)
        except (OSError, ssl.SSLError):
            raw.close()
            return
        self.handshakes += 1
        upstream = socket.create_connection(("127.0.0.1", self.upstream_port))

        def pump(a, b):
            try:
                while chunk := a.recv(65536):
                    b.sendall(chunk)
            except OSError:
                pass
            finally:
                try:
                    b.close()
                except OSError:
                    pass

        threading.Thread(target=pump, args=(upstream, client), daemon=True).start()
        pump(client, upstream)


@pytest.fixture
def proxy(tmp_path):
    server = Microsocks(tmp_path / "microsocks.log")
    yield server
    server.stop()


def funded_wallet(run, node) -> tuple[SigningAccount, int]:
    account = SigningAccount("wpkh")
    watcher(run, "import", "-", "--name", "w", "--network", "regtest", input=account.descriptor)
    node.send_to(account.address(0), 120_000)
    node.send_to(account.address(1), 30_000)
    node.mine(1)
    return account, 150_000


def test_sync_through_microsocks_with_names_resolved_by_the_proxy(run, tmp_path, regtest_node, proxy):
    node = regtest_node
    _, expected = funded_wallet(run, node)
    esplora = EsploraAdapter(node)
    tls = TLSRelay(node.electrum_port, tmp_path)
    core_wallet = f"airlock-{uuid.uuid4().hex[:12]}"
    urls = {
        "electrum": f"electrum://localhost:{node.electrum_port}",
        "electrums": f"electrums://localhost:{tls.port}?insecure=1",
        "esplora": f"esplora+http://localhost:{esplora.port}",
        "bitcoind": f"bitcoind://localhost:{node.rpc_port}/wallet/{core_wallet}?cookie={node.cookie}",
    }
    try:
        for backend, url in urls.items():
            shown = jout(watcher(run, "node", "set", url, "--proxy", proxy.url, "--json"))
            assert shown["proxy"] == proxy.url
            assert jout(watcher(run, "node", "show", "--json"))["proxy"] == proxy.url
            assert f"proxy: {proxy.url}" in watcher(run, "node", "show").stdout.decode()
            before = proxy.text().count("connected to localhost:")
            synced = jout(watcher(run, "sync", "--json"))
            assert synced["balance"] == expected, backend
            port = url.split("localhost:")[1].split("/")[0].split("?")[0]
            log = proxy.text()
            # The proxy connected, to the name as the watcher was given it (never resolved by the watcher).
            assert f"connected to localhost:{port}" in log, (backend, log)
            assert log.count("connected to localhost:") > before
        assert tls.handshakes >= 1  # TLS ran end to end, inside the proxied connection
    finally:
        esplora.close()
        tls.close()

    # A node set without --proxy connects directly again, and node show says nothing of a proxy.
    watcher(run, "node", "set", urls["electrum"])
    assert jout(watcher(run, "node", "show", "--json"))["proxy"] is None
    count = proxy.text().count("connected to")
    assert jout(watcher(run, "sync", "--json"))["balance"] == expected
    assert proxy.text().count("connected to") == count


def test_onion_name_reaches_the_proxy_unresolved(run, tmp_path, proxy):
    account = SigningAccount("wpkh")
    watcher(run, "import", "-", "--name", "w", "--network", "regtest", input=account.descriptor)
    onion = "airlockregtestxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.onion"
    # Without a proxy an onion URL is refused before anything is stored.
    refused = watcher(run, "node", "set", f"electrum://{onion}:50001", check=False)
    assert refused.returncode == 2 and b"onion" in refused.stderr and b"--proxy" in refused.stderr
    assert watcher(run, "node", "show", check=False).returncode == 1
    tap = SocksTap(proxy.port)
    try:
        watcher(run, "node", "set", f"electrum://{onion}:50001", "--proxy", f"socks5h://127.0.0.1:{tap.port}")
        failed = watcher(run, "sync", check=False)
        assert failed.returncode == 5, failed.stderr
        # The proxy got the name itself (SOCKS5 address type 3, a domain name), tried it, and could not connect.
        assert (3, onion, 50001) in tap.requests
        assert b"the proxy" in failed.stderr and b"could not connect" in failed.stderr
        assert "connected to" not in proxy.text()
    finally:
        tap.close()


def test_with_the_proxy_stopped_the_watcher_exits_5_and_never_connects_directly(run, regtest_node, proxy):
    node = regtest_node
    funded_wallet(run, node)
    watcher(run, "node", "set", f"electrum://127.0.0.1:{node.electrum_port}", "--proxy", proxy.url)
    assert watcher(run, "sync", "--json").returncode == 0  # control: through the running proxy it works
    assert f"connected to 127.0.0.1:{node.electrum_port}" in proxy.text()
    proxy.stop()
    before = len(node.log_path.read_text(errors="replace"))
    failed = watcher(run, "sync", check=False)
    assert failed.returncode == 5
    assert b"SOCKS proxy 127.0.0.1" in failed.stderr and b"not connecting directly" in failed.stderr
    # The node (reachable directly all along) saw no new client.
    assert "electrum client" not in node.log_path.read_text(errors="replace")[before:]
    for url in (
        f"bitcoind://127.0.0.1:{node.rpc_port}?cookie={node.cookie}",
        f"esplora+http://127.0.0.1:{node.rpc_port}",
    ):
        watcher(run, "node", "set", url, "--proxy", proxy.url)
        assert watcher(run, "node", "test", check=False).returncode == 5


def test_bad_proxy_values_are_refused(run):
    for bad, why in (
        ("socks5://127.0.0.1:9050", b"socks5h"),
        ("http://127.0.0.1:8080", b"socks5h"),
        ("socks5h://127.0.0.1", b"port"),
        ("socks5h://127.0.0.1:99999", b""),
    ):
        proc = watcher(run, "node", "set", "electrum://127.0.0.1:50001", "--proxy", bad, check=False)
        assert proc.returncode == 2, (bad, proc.stderr)
        assert why in proc.stderr
    assert watcher(run, "node", "show", check=False).returncode == 1  # nothing stored
