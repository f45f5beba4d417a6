"""BDK (bdkpython, its Electrum client) syncs wallets from the regtest node, and spends through it."""

from __future__ import annotations

import os

import bdkpython as bdk
import pytest
from embit import bip32
from embit.networks import NETWORKS

from regtest.testing import FAUCET_ADDRESS, scripthash

NET = NETWORKS["regtest"]


def _wallet(kind: str):
    """A fresh BIP84 (wpkh) or BIP86 (tr) wallet on random keys, as tprv descriptors BDK signs with."""
    root = bip32.HDKey.from_seed(os.urandom(32), version=NET["xprv"])
    purpose = {"wpkh": 84, "tr": 86}[kind]
    account = f"{root.to_base58()}/{purpose}'/1'/0'"
    ext = bdk.Descriptor(f"{kind}({account}/0/*)", bdk.NetworkKind.TEST)
    chg = bdk.Descriptor(f"{kind}({account}/1/*)", bdk.NetworkKind.TEST)
    return bdk.Wallet(ext, chg, bdk.Network.REGTEST, bdk.Persister.new_in_memory())


def _scan(wallet, client):
    wallet.apply_update(client.full_scan(wallet.start_full_scan().build(), 20, 10, True))
    return wallet.balance()


@pytest.mark.parametrize("kind", ["wpkh", "tr"])
def test_bdk_syncs_and_spends_through_the_node(regtest_node, kind):
    node = regtest_node
    wallet = _wallet(kind)
    client = bdk.ElectrumClient(node.electrum_url)
    addr = str(wallet.reveal_next_address(bdk.KeychainKind.EXTERNAL).address)
    assert addr.startswith("bcrt1q" if kind == "wpkh" else "bcrt1p")

    # A confirmed payment from outside.
    node.send_to(addr, 1_000_000)
    node.mine(1)
    bal = _scan(wallet, client)
    assert bal.confirmed.to_sat() == 1_000_000
    assert bal.untrusted_pending.to_sat() == 0

    # A coinbase to the wallet is immature until 100 blocks have confirmed it.
    block_hash = node.mine(1, addr)[0]
    coinbase_value = round(node.cli("getblock", block_hash, 2)["tx"][0]["vout"][0]["value"] * 100_000_000)
    bal = _scan(wallet, client)
    assert bal.immature.to_sat() == coinbase_value
    assert bal.confirmed.to_sat() == 1_000_000

    # An unconfirmed payment shows as pending, to the satoshi.
    addr2 = str(wallet.reveal_next_address(bdk.KeychainKind.EXTERNAL).address)
    node.send_to(addr2, 250_000)
    bal = _scan(wallet, client)
    assert bal.confirmed.to_sat() == 1_000_000
    assert bal.untrusted_pending.to_sat() == 250_000

    # Maturity: 99 more blocks on top of the coinbase's first confirmation.
    node.mine(99)
    bal = _scan(wallet, client)
    assert bal.immature.to_sat() == 0
    assert bal.confirmed.to_sat() == coinbase_value + 1_250_000

    # BDK builds, signs and broadcasts a spend through the node; the node mines it.
    recipient = bdk.Address(FAUCET_ADDRESS, bdk.Network.REGTEST)
    psbt = (
        bdk.TxBuilder()
        .add_recipient(recipient.script_pubkey(), bdk.Amount.from_sat(300_000))
        .fee_rate(bdk.FeeRate.from_sat_per_vb(3))
        .finish(wallet)
    )
    assert wallet.sign(psbt)
    tx = psbt.extract_tx()
    fee = wallet.calculate_fee(tx).to_sat()
    assert fee > 0
    txid = str(tx.compute_txid())
    assert client.transaction_broadcast(tx) is not None
    assert txid in node.cli("getrawmempool")
    entry = node.cli("getmempoolentry", txid)
    assert round(entry["fees"]["base"] * 100_000_000) == fee
    node.mine(1)
    assert node.cli("getrawtransaction", txid, True)["confirmations"] == 1
    assert txid not in node.cli("getrawmempool")
    bal = _scan(wallet, client)
    assert bal.total.to_sat() == coinbase_value + 1_250_000 - 300_000 - fee
    assert bal.confirmed.to_sat() == bal.total.to_sat()
    # The payment is on the chain where the recipient's script is: the node's Electrum index shows it.
    with node.electrum() as e:
        hist = e.call("blockchain.scripthash.get_history", scripthash(bytes(recipient.script_pubkey().to_bytes())))
    assert txid in [h["tx_hash"] for h in hist]
