"""The node process: its start-up line, ports, lock, clean SIGTERM stop, and a chain that survives restarts."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess

from embit import ec
from embit import script as escript
from embit.networks import NETWORKS

from regtest.testing import REGTEST_DIR, RegtestNode, scripthash

NET = NETWORKS["regtest"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_startup_line_ports_cookie_and_clean_stop(tmp_path):
    eport, rport = _free_port(), _free_port()
    node = RegtestNode.start(tmp_path / "d", electrum_port=eport, rpc_port=rport)
    try:
        assert (node.electrum_port, node.rpc_port) == (eport, rport)
        assert node.cookie == str(tmp_path / "d" / "regtest" / ".cookie")
        assert stat.S_IMODE(os.stat(node.cookie).st_mode) == 0o600
        assert open(node.cookie).read().startswith("__cookie__:")
        info = json.loads((tmp_path / "d" / "regtest" / "node.json").read_text())
        assert (info["electrum"], info["rpc"], info["datadir"]) == (eport, rport, str(tmp_path / "d"))
        for port in (eport, rport):  # loopback only
            with socket.create_connection(("127.0.0.1", port), timeout=5):
                pass
        # A second node on the same datadir is refused while the first runs.
        second = subprocess.run(
            [str(REGTEST_DIR / "node"), "--datadir", str(tmp_path / "d")], capture_output=True, text=True, timeout=60
        )
        assert second.returncode != 0 and "lock" in second.stderr and second.stdout == ""
        assert node.cli("getblockcount") == 0
    finally:
        code = node.stop()
    assert code == 0
    assert not os.path.exists(node.cookie)


def test_chain_mempool_and_indexes_survive_a_restart(fresh_regtest_node):
    node = fresh_regtest_node
    spk = escript.p2wpkh(ec.PrivateKey(os.urandom(32)).get_public_key())
    addr = spk.address(NET)
    confirmed = node.send_to(addr, 60_000)
    node.mine(3)
    pending = node.send_to(addr, 7_000)
    before = {
        "height": node.height(),
        "best": node.cli("getbestblockhash"),
        "scan": node.cli("scantxoutset", "start", [f"addr({addr})"])["unspents"],
        "block": node.cli("getblock", node.cli("getblockhash", 102), 2),
    }
    with node.electrum() as e:
        history_before = e.call("blockchain.scripthash.get_history", scripthash(spk.data))

    node.restart()

    assert node.height() == before["height"]
    assert node.cli("getbestblockhash") == before["best"]
    assert node.cli("scantxoutset", "start", [f"addr({addr})"])["unspents"] == before["scan"]
    assert node.cli("getblock", node.cli("getblockhash", 102), 2) == {**before["block"]}
    assert node.cli("getrawmempool") == [pending]
    with node.electrum() as e:
        assert e.call("blockchain.scripthash.get_history", scripthash(spk.data)) == history_before
        assert e.call("blockchain.scripthash.get_balance", scripthash(spk.data)) == {
            "confirmed": 60_000,
            "unconfirmed": 7_000,
        }
    assert node.cli("getrawtransaction", confirmed, True)["confirmations"] == 3
    # The chain goes on from where it was; the restored mempool is mined.
    node.mine(1)
    assert node.cli("getrawtransaction", pending, True)["confirmations"] == 1
    assert node.cli("getblockheader", node.cli("getbestblockhash"))["previousblockhash"] == before["best"]


def test_subsidy_halves_every_150_blocks(fresh_regtest_node):
    node = fresh_regtest_node
    node.mine(151)

    def coinbase_value(height: int) -> int:
        block = node.cli("getblock", node.cli("getblockhash", height), 2)
        return round(block["tx"][0]["vout"][0]["value"] * 100_000_000)

    assert coinbase_value(1) == coinbase_value(149) == 50 * 100_000_000
    assert coinbase_value(150) == coinbase_value(151) == 25 * 100_000_000
