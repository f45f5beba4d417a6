"""The regtest node as a pytest fixture: a real chain (libbitcoinkernel-validated) for every suite that needs one.
A conftest.py imports them: `from regtest.testing import fresh_regtest_node, regtest_node`.

    def test_something(regtest_node):
        addr = ...                                   # any regtest address
        txid = regtest_node.send_to(addr, 150_000)   # the faucet pays it (unconfirmed)
        regtest_node.mine(1)                         # confirm it (coinbase goes to the faucet)
        regtest_node.cli("getblockcount")            # any RPC; params are JSON values
        regtest_node.electrum_url                    # "tcp://127.0.0.1:PORT" for BDK; .electrum_port for others

`regtest_node` is session-scoped (one node for the whole run; tests use fresh keys, so they do not disturb each
other); `fresh_regtest_node` is function-scoped, for tests that stop, restart or otherwise need a chain of their own.
Both stop the node with SIGTERM at the end and check that it exited cleanly. The node's log is `<datadir>/node.log`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import select
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
from embit import ec
from embit import script as escript
from embit.networks import NETWORKS
from embit.transaction import SIGHASH, Transaction, TransactionInput, TransactionOutput

from .cli import call  # the node's own client, reused

REGTEST_DIR = Path(__file__).resolve().parents[1]  # scripts/regtest: the `node` and `cli` entry scripts

NET = NETWORKS["regtest"]
FAUCET_KEY = ec.PrivateKey(hashlib.sha256(b"airlock regtest faucet").digest())
FAUCET_SPK = escript.p2wpkh(FAUCET_KEY.get_public_key())
FAUCET_ADDRESS = FAUCET_SPK.address(NET)
COINBASE_MATURITY = 100


class ElectrumConnection:
    """A minimal Electrum-protocol client for tests: one TCP connection, newline-delimited JSON-RPC."""

    def __init__(self, port: int, timeout: float = 30):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.buf = b""
        self.next_id = 0
        self.notifications: list[dict] = []

    def close(self) -> None:
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def read_message(self):
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("server closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def request(self, method: str, *params) -> dict:
        """Sends one request; returns the whole response object (notifications met on the way are kept)."""
        self.next_id += 1
        rid = self.next_id
        self.send_raw(
            (json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": list(params)}) + "\n").encode()
        )
        while True:
            msg = self.read_message()
            if isinstance(msg, dict) and "method" in msg and "id" not in msg:
                self.notifications.append(msg)
                continue
            return msg

    def call(self, method: str, *params):
        resp = self.request(method, *params)
        if resp.get("error"):
            raise ElectrumRequestError(resp["error"])
        return resp["result"]

    def wait_notification(self, method: str, timeout: float = 10) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            for i, n in enumerate(self.notifications):
                if n["method"] == method:
                    return self.notifications.pop(i)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no {method} notification")
            self.sock.settimeout(remaining)
            try:
                msg = self.read_message()
            finally:
                self.sock.settimeout(30)
            self.notifications.append(msg)


class ElectrumRequestError(Exception):
    def __init__(self, error: dict):
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.code = error.get("code")
        self.message = error.get("message")


def scripthash(script_pubkey: bytes) -> str:
    return hashlib.sha256(script_pubkey).digest()[::-1].hex()


def sign_p2wpkh(tx: Transaction, index: int, key: ec.PrivateKey, value: int) -> None:
    """Signs input `index` of `tx` (embit objects) as a P2WPKH spend of `value` sats."""
    pub = key.get_public_key()
    h = tx.sighash_segwit(index, escript.p2pkh(pub), value)
    sig = key.sign(h).serialize() + bytes([SIGHASH.ALL])
    tx.vin[index].witness = escript.Witness([sig, pub.sec()])


class RegtestNode:
    """A running `scripts/regtest/node` with helpers. Create with `RegtestNode.start(datadir)`."""

    def __init__(self, datadir: Path, extra_args: tuple[str, ...] = ()):
        self.datadir = Path(datadir)
        self.extra_args = tuple(extra_args)  # more `scripts/regtest/node` flags (--disable-wallet, --mempoolfullrbf 0)
        self.proc: subprocess.Popen | None = None
        self.electrum_port = 0
        self.rpc_port = 0
        self.cookie = ""
        self._faucet_unconfirmed: dict[tuple[str, int], int] = {}  # our own change outputs not yet mined
        self._faucet_spent: set[tuple[str, int]] = set()

    @property
    def log_path(self) -> Path:
        return self.datadir / "node.log"

    @property
    def electrum_url(self) -> str:
        return f"tcp://127.0.0.1:{self.electrum_port}"

    @classmethod
    def start(
        cls,
        datadir: Path,
        electrum_port: int = 0,
        rpc_port: int = 0,
        timeout: float = 60,
        extra_args: tuple[str, ...] = (),
    ) -> RegtestNode:
        node = cls(datadir, extra_args)
        node._spawn(electrum_port, rpc_port, timeout)
        return node

    def _spawn(self, electrum_port: int, rpc_port: int, timeout: float) -> None:
        self.datadir.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [
                str(REGTEST_DIR / "node"),
                "--datadir",
                str(self.datadir),
                "--electrum-port",
                str(electrum_port),
                "--rpc-port",
                str(rpc_port),
                *self.extra_args,
            ],
            stdout=subprocess.PIPE,
            stderr=log,
            stdin=subprocess.DEVNULL,
        )
        log.close()
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        line = self.proc.stdout.readline() if ready else b""
        if not line:
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError(f"regtest node did not start; log:\n{self.log_path.read_text(errors='replace')}")
        info = json.loads(line)
        self.electrum_port, self.rpc_port, self.cookie = info["electrum"], info["rpc"], info["cookie"]

    def stop(self, timeout: float = 30) -> int:
        """SIGTERM, then wait; returns the exit code (kills it if it does not stop in time)."""
        if self.proc is None:
            return 0
        proc, self.proc = self.proc, None
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                raise RuntimeError("regtest node ignored SIGTERM") from None
        if proc.stdout:
            proc.stdout.close()
        return proc.returncode

    def restart(self) -> None:
        assert self.stop() == 0
        self._faucet_unconfirmed.clear()
        self._faucet_spent.clear()
        self._spawn(0, 0, 60)

    # --- RPC -----------------------------------------------------------------------------------------------------

    def cli(self, method: str, *args, wallet: str | None = None):
        """Calls an RPC with JSON params (ints stay ints, lists stay lists); raises RpcCallError(code, message).
        `wallet` sends it to `/wallet/<name>`, as `bitcoin-cli -rpcwallet=<name>` does."""
        return call(self.datadir, method, list(args), rpc_port=self.rpc_port, wallet=wallet)

    def cli_process(self, *args: str) -> subprocess.CompletedProcess:
        """Runs `scripts/regtest/cli --datadir DIR ARGS…` as a user would (string arguments, bitcoin-cli rules)."""
        return subprocess.run(
            [str(REGTEST_DIR / "cli"), "--datadir", str(self.datadir), *args],
            capture_output=True,
            text=True,
            timeout=120,
        )

    def electrum(self) -> ElectrumConnection:
        return ElectrumConnection(self.electrum_port)

    # --- chain helpers -------------------------------------------------------------------------------------------

    def height(self) -> int:
        return self.cli("getblockcount")

    def mine(self, n: int = 1, address: str | None = None) -> list[str]:
        """Mines `n` blocks (with the mempool) paying `address` (default: the faucet). Returns their hashes."""
        return self.cli("generatetoaddress", n, address or FAUCET_ADDRESS)

    def _faucet_coins(self) -> list[tuple[str, int, int]]:
        """Spendable faucet coins: mature confirmed ones and our own unconfirmed change, unspent by us."""
        res = self.cli("scantxoutset", "start", [f"addr({FAUCET_ADDRESS})"])
        coins = []
        for u in res["unspents"]:
            op = (u["txid"], u["vout"])
            if op in self._faucet_spent:
                continue
            if u["coinbase"] and res["height"] + 1 - u["height"] < COINBASE_MATURITY:
                continue
            coins.append((u["txid"], u["vout"], round(u["amount"] * 100_000_000)))
        known = {(t, v) for t, v, _ in coins}
        for op, value in self._faucet_unconfirmed.items():
            if op not in self._faucet_spent and op not in known:
                coins.append((op[0], op[1], value))
        return coins

    def send_to(self, address: str, sats: int, fee_rate: int = 2) -> str:
        """The faucet pays `sats` to `address` (unconfirmed); returns the txid. Mines 101 blocks to the faucet the
        first time it has no mature coin."""
        spk = escript.address_to_scriptpubkey(address)
        fee = (110 + 43) * fee_rate + 50  # one P2WPKH input, two outputs, generous rounding
        coins = [c for c in self._faucet_coins() if c[2] >= sats + fee + 1000]
        if not coins:
            self.mine(COINBASE_MATURITY + 1)
            coins = [c for c in self._faucet_coins() if c[2] >= sats + fee + 1000]
        assert coins, "the faucet has no coin large enough"
        txid, vout, value = max(coins, key=lambda c: c[2])
        tx = Transaction(
            version=2,
            vin=[TransactionInput(bytes.fromhex(txid), vout, sequence=0xFFFFFFFD)],
            vout=[TransactionOutput(sats, spk), TransactionOutput(value - sats - fee, FAUCET_SPK)],
        )
        sign_p2wpkh(tx, 0, FAUCET_KEY, value)
        sent = self.cli("sendrawtransaction", tx.serialize().hex())
        self._faucet_spent.add((txid, vout))
        self._faucet_unconfirmed.pop((txid, vout), None)
        self._faucet_unconfirmed[(sent, 1)] = value - sats - fee
        return sent


def _check_stopped_cleanly(node: RegtestNode, code: int) -> None:
    """Exit code 0 after SIGTERM, and no Python traceback in the log: no client input made the node fail."""
    assert code == 0, f"regtest node exited {code}; log: {node.log_path}"
    log = node.log_path.read_text(errors="replace")
    assert "Traceback" not in log, f"the regtest node logged an exception; see {node.log_path}"


def _start_or_fail(datadir: Path) -> RegtestNode:
    return RegtestNode.start(datadir)


@pytest.fixture(scope="session")
def regtest_node(tmp_path_factory):
    """One regtest node for the whole session (fresh datadir, free ports); SIGTERM at the end."""
    node = _start_or_fail(tmp_path_factory.mktemp("regtest"))
    try:
        yield node
    finally:
        code = node.stop()
    _check_stopped_cleanly(node, code)


@pytest.fixture
def fresh_regtest_node(tmp_path):
    """A regtest node of this test's own (its datadir under tmp_path); SIGTERM at the end."""
    node = _start_or_fail(tmp_path / "regtest-node")
    try:
        yield node
    finally:
        code = node.stop()
    _check_stopped_cleanly(node, code)


class ElectrumDaemon:
    """An Electrum 4.3.4 daemon (the Debian package) on its own data dir, pointed at one regtest server."""

    def __init__(self, data_dir):
        self.dir = str(data_dir)
        self.pid: int | None = None

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        p = subprocess.run(
            ["electrum", "--regtest", "-D", self.dir, *args],
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        if check and p.returncode != 0:
            raise AssertionError(f"electrum {args[0]} exited {p.returncode}: {p.stdout}\n{p.stderr}")
        return p

    def start(self, port: int) -> None:
        p = self.run("daemon", "-d", "--oneserver", "--server", f"127.0.0.1:{port}:t")
        m = re.search(r"PID (\d+)", p.stdout + p.stderr)
        self.pid = int(m.group(1)) if m else None

    def stop(self) -> None:
        self.run("stop", check=False)
        if self.pid is None:
            return
        for _ in range(50):  # the daemon we started, by its pid, if `stop` did not end it
            try:
                os.kill(self.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)
        os.kill(self.pid, signal.SIGKILL)
