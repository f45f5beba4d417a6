"""Electrum 4.3.4 (the Debian package), as a daemon on its own data dir, syncs a BIP84 wallet from the node."""

from __future__ import annotations

import hashlib
import json
import time
from decimal import Decimal

import pytest
from embit import bip32, bip39
from embit import script as escript
from embit.networks import NETWORKS

from regtest.testing import FAUCET_ADDRESS, ElectrumDaemon

NET = NETWORKS["regtest"]
MNEMONIC = "abandon " * 11 + "about"


@pytest.fixture
def electrum_daemon(tmp_path):
    d = ElectrumDaemon(tmp_path / "electrum")
    try:
        yield d
    finally:
        d.stop()


def _wait_synced(el: ElectrumDaemon, height: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        info = json.loads(el.run("getinfo").stdout)
        if info.get("blockchain_height") == height and el.run("is_synchronized").stdout.strip() == "true":
            return
        time.sleep(0.3)
    raise AssertionError(f"electrum did not sync to height {height}: {info}")


def _node_balance(node, tpub: str) -> tuple[int, int]:
    """(confirmed, unconfirmed) sats of the account's first 20 receive and change addresses, from the node."""
    confirmed = round(
        Decimal(
            str(
                node.cli(
                    "scantxoutset",
                    "start",
                    [{"desc": f"wpkh({tpub}/0/*)", "range": 19}, {"desc": f"wpkh({tpub}/1/*)", "range": 19}],
                )["total_amount"]
            )
        )
        * 100_000_000
    )
    unconfirmed = 0
    with node.electrum() as e:
        for chain in (0, 1):
            for i in range(20):
                spk = escript.p2wpkh(bip32.HDKey.from_string(tpub).derive([chain, i]).key).data
                sh = hashlib.sha256(spk).digest()[::-1].hex()
                unconfirmed += e.call("blockchain.scripthash.get_balance", sh)["unconfirmed"]
    return confirmed, unconfirmed


def test_electrum_restores_syncs_and_agrees_with_the_node(fresh_regtest_node, electrum_daemon):
    node, el = fresh_regtest_node, electrum_daemon
    root = bip32.HDKey.from_seed(bip39.mnemonic_to_seed(MNEMONIC), version=NET["xprv"])
    account = root.derive("m/84h/1h/0h")
    vprv = account.to_base58(version=NET["zprv"])
    tpub = account.to_public().to_base58(version=NET["xpub"])

    def address(chain: int, i: int) -> str:
        return escript.p2wpkh(account.derive([chain, i]).key).address(NET)

    node.send_to(address(0, 0), 1_000_000)
    node.send_to(address(0, 4), 2_000_000)
    node.send_to(address(1, 0), 300_000)
    node.mine(1)
    node.send_to(address(0, 1), 500_000)  # unconfirmed

    el.run("--offline", "restore", vprv)
    el.run("--offline", "setconfig", "use_exchange_rate", "false")
    listed = json.loads(el.run("--offline", "listaddresses").stdout)
    assert address(0, 0) in listed and address(1, 0) in listed
    el.start(node.electrum_port)
    el.run("load_wallet")
    _wait_synced(el, node.height())

    bal = json.loads(el.run("getbalance").stdout)
    assert Decimal(bal["confirmed"]) == Decimal("0.033")
    assert Decimal(bal.get("unconfirmed", "0")) == Decimal("0.005")
    assert _node_balance(node, tpub) == (3_300_000, 500_000)

    # Electrum signs a payment and broadcasts it through the node; the node mines it.
    signed = el.run("payto", FAUCET_ADDRESS, "0.001", "--feerate", "2").stdout.strip()
    txid = el.run("broadcast", signed).stdout.strip().strip('"')
    assert txid in node.cli("getrawmempool")
    node.mine(1)
    assert node.cli("getrawtransaction", txid, True)["confirmations"] == 1
    _wait_synced(el, node.height())
    history = json.loads(el.run("onchain_history").stdout)
    assert txid in [t["txid"] for t in history["transactions"]]
    fee = round(Decimal(str(node.cli("getrawtransaction", txid, 2)["fee"])) * 100_000_000)
    confirmed, unconfirmed = _node_balance(node, tpub)
    assert (confirmed, unconfirmed) == (3_800_000 - 100_000 - fee, 0)
    bal = json.loads(el.run("getbalance").stdout)
    assert round(Decimal(bal["confirmed"]) * 100_000_000) == confirmed
