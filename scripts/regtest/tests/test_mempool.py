"""The node's mempool refuses invalid transactions with Bitcoin Core's reject reasons, and mines valid ones."""

from __future__ import annotations

import hashlib
import os

import pytest
from embit import ec
from embit import script as escript
from embit.networks import NETWORKS
from embit.transaction import SIGHASH, Transaction, TransactionInput, TransactionOutput

from regtest.cli import RpcCallError
from regtest.testing import ElectrumRequestError, scripthash, sign_p2wpkh

NET = NETWORKS["regtest"]


class Key:
    """A fresh key with its P2WPKH (or P2TR) output script and address."""

    def __init__(self, taproot: bool = False):
        self.priv = ec.PrivateKey(os.urandom(32))
        self.taproot = taproot
        self.spk = escript.p2tr(self.priv.get_public_key()) if taproot else escript.p2wpkh(self.priv.get_public_key())
        self.address = self.spk.address(NET)


def _fund(node, key: Key, sats: int, confirm: bool = True) -> tuple[str, int, int]:
    """Pays `sats` to `key`; returns the outpoint (txid, vout) and value."""
    txid = node.send_to(key.address, sats)
    if confirm:
        node.mine(1)
    return txid, 0, sats


def _spend(
    coins: list[tuple[str, int, int, Key]],
    outputs: list[tuple[escript.Script, int]],
    corrupt: bool = False,
    sequence: int = 0xFFFFFFFD,
    locktime: int = 0,
) -> Transaction:
    """A transaction spending `coins` (txid, vout, value, key) to `outputs`, signed per input type."""
    tx = Transaction(
        version=2,
        locktime=locktime,
        vin=[TransactionInput(bytes.fromhex(t), v, sequence=sequence) for t, v, _, _ in coins],
        vout=[TransactionOutput(value, spk) for spk, value in outputs],
    )
    spks = [k.spk for _, _, _, k in coins]
    values = [v for _, _, v, _ in coins]
    for i, (_, _, value, key) in enumerate(coins):
        if key.taproot:
            h = tx.sighash_taproot(i, script_pubkeys=spks, values=values, sighash=SIGHASH.DEFAULT)
            sig = key.priv.taproot_tweak(b"").schnorr_sign(h).serialize()
            tx.vin[i].witness = escript.Witness([sig])
        else:
            sign_p2wpkh(tx, i, key.priv, value)
    if corrupt:
        sig = bytearray(tx.vin[0].witness.items[0])
        sig[10] ^= 0x01
        tx.vin[0].witness.items[0] = bytes(sig)
    return tx


def _spend_paying(coin: tuple[str, int, int, Key], spk: escript.Script, fee) -> tuple[Transaction, int, int]:
    """`coin` spent to `spk` paying `fee(vsize)` sats, and that vsize and fee.

    A signature's DER length varies, so a one-input, one-output P2WPKH spend is 110 vB or, rarely, 109, and the amount
    decides which (it changes the signature). The spend is built at 110 vB's fee with lock times 0, 1, 2... until one
    signs to 110 vB (a fixed point need not exist for one lock time: 110's fee can sign to 109 and 109's to 110)."""
    for locktime in range(32):
        tx = _spend([coin], [(spk, coin[2] - fee(110))], locktime=locktime)
        if _vsize(tx) == 110:
            return tx, 110, fee(110)
    raise AssertionError("no lock time signed to 110 vB")


def _reject(node, tx: Transaction) -> RpcCallError:
    with pytest.raises(RpcCallError) as info:
        node.cli("sendrawtransaction", tx.serialize().hex())
    return info.value


def _test_accept(node, tx: Transaction) -> dict:
    return node.cli("testmempoolaccept", [tx.serialize().hex()])[0]


@pytest.mark.parametrize("taproot", [False, True], ids=["p2wpkh", "p2tr"])
def test_bad_signature_is_refused_and_a_good_one_accepted(regtest_node, taproot):
    node = regtest_node
    key, dest = Key(taproot), Key()
    txid, vout, value = _fund(node, key, 100_000)
    bad = _spend([(txid, vout, value, key)], [(dest.spk, 99_000)], corrupt=True)
    err = _reject(node, bad)
    assert err.code == -26
    assert err.message.startswith("mandatory-script-verify-flag-failed")
    res = _test_accept(node, bad)
    assert res["allowed"] is False and res["reject-reason"].startswith("mandatory-script-verify-flag-failed")
    with node.electrum() as e, pytest.raises(ElectrumRequestError) as info:
        e.call("blockchain.transaction.broadcast", bad.serialize().hex())
    assert "mandatory-script-verify-flag-failed" in info.value.message
    # Signed over the wrong amount: only a check that is given the spent output's value catches this.
    wrong_amount = _spend([(txid, vout, value + 1, key)], [(dest.spk, 99_000)])
    assert _reject(node, wrong_amount).message.startswith("mandatory-script-verify-flag-failed")

    good = _spend([(txid, vout, value, key)], [(dest.spk, 99_000)])
    res = _test_accept(node, good)
    assert res["allowed"] is True and res["fees"]["base"] == pytest.approx(0.00001)
    assert node.cli("sendrawtransaction", good.serialize().hex()) == good.txid().hex()
    node.mine(1)
    assert node.cli("getrawtransaction", good.txid().hex(), True)["confirmations"] == 1


def _rate(fee: int, vsize: int) -> str:
    """Core's CFeeRate(fee, vsize).ToString(): integer sat/kvB shown as BTC/kvB."""
    k = fee * 1000 // vsize
    return f"{k // 100_000_000}.{k % 100_000_000:08d} BTC/kvB"


def _btc(sats: int) -> str:
    """Core's FormatMoney."""
    s = f"{sats // 100_000_000}.{sats % 100_000_000:08d}".rstrip("0")
    whole, frac = s.split(".")
    return f"{whole}.{frac.ljust(2, '0')}"


def _mempool(node) -> set[str]:
    return set(node.cli("getrawmempool"))


def test_replacement_paying_enough_evicts_the_original_and_its_descendants(regtest_node):
    """Full RBF (Core 28's default): the original does not signal BIP125, the replacement still wins."""
    node = regtest_node
    key, a, b, c = Key(), Key(), Key(), Key()
    txid, vout, value = _fund(node, key, 200_000)
    first = _spend([(txid, vout, value, key)], [(a.spk, 190_000)], sequence=0xFFFFFFFE)
    child = _spend([(first.txid().hex(), 0, 190_000, a)], [(c.spk, 185_000)])
    node.cli("sendrawtransaction", first.serialize().hex())
    node.cli("sendrawtransaction", child.serialize().hex())
    assert node.cli("getmempoolinfo")["fullrbf"] is True
    # first pays 10,000 and child 5,000: the replacement must pay >= 15,000 + its own vsize at 1 sat/vB.
    second, second_vsize, second_fee = _spend_paying((txid, vout, value, key), b.spk, lambda v: 15_000 + v)
    with node.electrum() as e:
        sh_a, sh_c, sh_b = scripthash(a.spk.data), scripthash(c.spk.data), scripthash(b.spk.data)
        assert e.call("blockchain.scripthash.subscribe", sh_a) is not None
        assert e.call("blockchain.scripthash.subscribe", sh_c) is not None
        assert e.call("blockchain.scripthash.subscribe", sh_b) is None
        # testmempoolaccept of the replacement alone says it would be allowed, and changes nothing.
        res = _test_accept(node, second)
        assert res["allowed"] is True and res["fees"]["base"] * 100_000_000 == pytest.approx(second_fee)
        assert _mempool(node) == {first.txid().hex(), child.txid().hex()}
        # ...but as part of a package Core 28 does not replace.
        its_child = _spend([(second.txid().hex(), 0, 200_000 - second_fee, b)], [(c.spk, 180_000)])
        pkg = node.cli("testmempoolaccept", [second.serialize().hex(), its_child.serialize().hex()])
        assert pkg[0]["allowed"] is False and pkg[0]["reject-reason"] == "bip125-replacement-disallowed"
        assert node.cli("sendrawtransaction", second.serialize().hex()) == second.txid().hex()
        assert _mempool(node) == {second.txid().hex()}
        for t in (first, child):
            with pytest.raises(RpcCallError) as info:
                node.cli("getmempoolentry", t.txid().hex())
            assert info.value.code == -5
            with pytest.raises(RpcCallError):
                node.cli("getrawtransaction", t.txid().hex())
        # Electrum: the evicted transactions leave the histories and the subscribers hear of it.
        notes = {}
        while len(notes) < 3:
            n = e.wait_notification("blockchain.scripthash.subscribe")
            notes[n["params"][0]] = n["params"][1]
        assert notes[sh_a] is None and notes[sh_c] is None and notes[sh_b] is not None
        assert e.call("blockchain.scripthash.get_history", sh_a) == []
        assert e.call("blockchain.scripthash.get_history", sh_c) == []
        assert e.call("blockchain.scripthash.get_mempool", sh_b) == [
            {"tx_hash": second.txid().hex(), "height": 0, "fee": second_fee}
        ]
        assert e.call("blockchain.scripthash.get_balance", sh_a) == {"confirmed": 0, "unconfirmed": 0}
    # The original again is now refused as a replacement of the replacement: its feerate is lower.
    err = _reject(node, first)
    assert err.code == -26
    assert err.message == (
        f"insufficient fee, rejecting replacement {first.txid().hex()}; new feerate "
        f"{_rate(10_000, _vsize(first))} <= old feerate {_rate(second_fee, second_vsize)}"
    )
    node.mine(1)
    assert node.cli("getrawtransaction", second.txid().hex(), True)["confirmations"] == 1
    err = _reject(node, first)
    assert (err.code, err.message) == (-25, "bad-txns-inputs-missingorspent")
    assert _test_accept(node, first)["reject-reason"] == "missing-inputs"
    err = _reject(node, second)
    assert (err.code, err.message) == (-27, "Transaction outputs already in utxo set")


def test_replacement_refusals_use_cores_reasons(regtest_node):
    node = regtest_node
    key, other, a, b = Key(), Key(), Key(), Key()
    txid, vout, value = _fund(node, key, 300_000)
    otxid, ovout, ovalue = _fund(node, other, 100_000)
    first = _spend([(txid, vout, value, key)], [(a.spk, 290_000)])  # fee 10,000, vsize 110
    child = _spend([(first.txid().hex(), 0, 290_000, a)], [(a.spk, 280_000)])  # fee 10,000
    node.cli("sendrawtransaction", first.serialize().hex())
    node.cli("sendrawtransaction", child.serialize().hex())
    before = _mempool(node)
    first_id = first.txid().hex()

    # Rule 6: the feerate must beat each direct conflict's (equal is not enough). The two vsizes are read, not
    # assumed 110: a shorter signature makes a transaction 109 vB (it failed so once in a full test run).
    same_rate = _spend([(txid, vout, value, key)], [(b.spk, 290_000)])
    err = _reject(node, same_rate)
    assert err.message == (
        f"insufficient fee, rejecting replacement {same_rate.txid().hex()}; new feerate "
        f"{_rate(10_000, _vsize(same_rate))} <= old feerate {_rate(10_000, _vsize(first))}"
    )
    res = _test_accept(node, same_rate)
    assert res["allowed"] is False and res["reject-reason"] == "insufficient fee"

    # Rule 3: a higher feerate than `first` but less than first + child paid together (20,000).
    low_total = _spend([(txid, vout, value, key)], [(b.spk, 285_000)])
    err = _reject(node, low_total)
    assert err.message == (
        f"insufficient fee, rejecting replacement {low_total.txid().hex()}, less fees than "
        f"conflicting txs; {_btc(15_000)} < {_btc(20_000)}"
    )

    # Rule 4: 20,000 + vsize - 1 is 1 sat short of the incremental relay fee (1 sat/vB) for its vsize.
    short, short_vsize, _ = _spend_paying((txid, vout, value, key), b.spk, lambda v: 20_000 + v - 1)
    err = _reject(node, short)
    assert err.message == (
        f"insufficient fee, rejecting replacement {short.txid().hex()}, not enough "
        f"additional fees to relay; {_btc(short_vsize - 1)} < {_btc(short_vsize)}"
    )

    # Rule 2: a new unconfirmed input (an output of some other mempool transaction).
    unrelated = _spend([(otxid, ovout, ovalue, other)], [(b.spk, 90_000)])
    node.cli("sendrawtransaction", unrelated.serialize().hex())
    adds = _spend([(txid, vout, value, key), (unrelated.txid().hex(), 0, 90_000, b)], [(b.spk, 300_000)])
    err = _reject(node, adds)
    assert err.message == (
        f"replacement-adds-unconfirmed, replacement {adds.txid().hex()} adds unconfirmed input, idx 1"
    )

    # A replacement may not spend an output of a transaction it replaces.
    spends_conflict = _spend([(txid, vout, value, key), (first_id, 0, 290_000, a)], [(b.spk, 500_000)])
    err = _reject(node, spends_conflict)
    assert err.message == (
        f"bad-txns-spends-conflicting-tx, {spends_conflict.txid().hex()} spends conflicting transaction {first_id}"
    )

    # Nothing refused changed the mempool.
    assert _mempool(node) == before | {unrelated.txid().hex()}
    node.mine(1)


def test_replacement_evicting_more_than_100_transactions_is_refused(regtest_node):
    node = regtest_node
    key, fan, b = Key(), Key(), Key()
    txid, vout, value = _fund(node, key, 2_000_000)
    parent = _spend([(txid, vout, value, key)], [(fan.spk, 15_000)] * 100)  # fee 500,000
    node.cli("sendrawtransaction", parent.serialize().hex(), 0)
    for n in range(100):
        child = _spend([(parent.txid().hex(), n, 15_000, fan)], [(b.spk, 14_000)])
        node.cli("sendrawtransaction", child.serialize().hex())
    assert len(_mempool(node)) >= 101 and parent.txid().hex() in _mempool(node)
    rich = _spend([(txid, vout, value, key)], [(b.spk, 1_000_000)])
    err = _reject(node, rich)
    assert err.message == (
        f"too many potential replacements, rejecting replacement {rich.txid().hex()}; too many "
        f"potential replacements (101 > 100)"
    )
    assert parent.txid().hex() in _mempool(node)
    node.mine(1)
    assert node.cli("getrawtransaction", parent.txid().hex(), True)["confirmations"] == 1


def test_without_full_rbf_only_signalling_transactions_are_replaced(fresh_regtest_node):
    """`--mempoolfullrbf 0` is Core's -mempoolfullrbf=0: a non-signalling conflict gets txn-mempool-conflict."""
    node = fresh_regtest_node
    node.stop()
    node.extra_args = ("--mempoolfullrbf", "0")
    node._spawn(0, 0, 60)
    assert node.cli("getmempoolinfo")["fullrbf"] is False
    key, a, b = Key(), Key(), Key()
    t1, v1, val1 = _fund(node, key, 200_000)
    t2, v2, val2 = _fund(node, key, 200_000)
    final = _spend([(t1, v1, val1, key)], [(a.spk, 190_000)], sequence=0xFFFFFFFE)
    opt_in = _spend([(t2, v2, val2, key)], [(a.spk, 190_000)])
    node.cli("sendrawtransaction", final.serialize().hex())
    node.cli("sendrawtransaction", opt_in.serialize().hex())
    err = _reject(node, _spend([(t1, v1, val1, key)], [(b.spk, 150_000)]))
    assert (err.code, err.message) == (-26, "txn-mempool-conflict")
    replacement = _spend([(t2, v2, val2, key)], [(b.spk, 150_000)])
    assert node.cli("sendrawtransaction", replacement.serialize().hex()) == replacement.txid().hex()
    assert _mempool(node) == {final.txid().hex(), replacement.txid().hex()}


def test_missing_input_is_refused(regtest_node):
    node = regtest_node
    key, dest = Key(), Key()
    tx = _spend([(os.urandom(32).hex(), 0, 50_000, key)], [(dest.spk, 40_000)])
    err = _reject(node, tx)
    assert (err.code, err.message) == (-25, "bad-txns-inputs-missingorspent")
    assert _test_accept(node, tx) == {
        "txid": tx.txid().hex(),
        "wtxid": _wtxid(tx),
        "allowed": False,
        "reject-reason": "missing-inputs",
    }


def _wtxid(tx: Transaction) -> str:
    return hashlib.sha256(hashlib.sha256(tx.serialize()).digest()).digest()[::-1].hex()


def test_immature_coinbase_spend_is_refused_until_maturity(regtest_node):
    node = regtest_node
    key, dest = Key(), Key()
    block = node.mine(1, key.address)[0]
    cb = node.cli("getblock", block, 2)["tx"][0]
    value = round(cb["vout"][0]["value"] * 100_000_000)
    tx = _spend([(cb["txid"], 0, value, key)], [(dest.spk, value - 1_000)])
    err = _reject(node, tx)
    assert (err.code, err.message) == (-26, "bad-txns-premature-spend-of-coinbase, tried to spend coinbase at depth 1")
    node.mine(98)
    assert _reject(node, tx).message.endswith("at depth 99")
    node.mine(1)
    assert node.cli("sendrawtransaction", tx.serialize().hex()) == tx.txid().hex()
    node.mine(1)


def test_fee_below_zero_and_below_relay_minimum_are_refused(regtest_node):
    node = regtest_node
    key, dest = Key(), Key()
    txid, vout, value = _fund(node, key, 5_000_000)
    err = _reject(node, _spend([(txid, vout, value, key)], [(dest.spk, 6_000_000)]))
    assert (err.code, err.message) == (-26, "bad-txns-in-belowout, value in (0.05) < value out (0.06)")
    zero_fee = _spend([(txid, vout, value, key)], [(dest.spk, value)])
    err = _reject(node, zero_fee)
    assert err.code == -26 and err.message == f"min relay fee not met, 0 < {_vsize(zero_fee)}"
    huge_fee = _spend([(txid, vout, value, key)], [(dest.spk, 10_000)])
    err = _reject(node, huge_fee)
    assert err.message == "Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)"
    assert node.cli("sendrawtransaction", huge_fee.serialize().hex(), 0) == huge_fee.txid().hex()  # 0 = no limit
    node.mine(1)


def _vsize(tx: Transaction) -> int:
    full = len(tx.serialize())
    stripped = len(
        Transaction(
            tx.version,
            [TransactionInput(i.txid, i.vout, i.script_sig, i.sequence) for i in tx.vin],
            tx.vout,
            tx.locktime,
        ).serialize()
    )
    return (stripped * 3 + full + 3) // 4


def test_malformed_transactions_are_refused(regtest_node):
    node = regtest_node
    for bad in ["", "00", "zz", "0200000000"]:
        with pytest.raises(RpcCallError) as info:
            node.cli("sendrawtransaction", bad)
        assert info.value.code == -22
    key, dest = Key(), Key()
    txid, vout, value = _fund(node, key, 100_000)
    dup = _spend([(txid, vout, value, key), (txid, vout, value, key)], [(dest.spk, 150_000)])
    assert _reject(node, dup).message == "bad-txns-inputs-duplicate"


def test_chained_unconfirmed_spends_are_accepted_and_mined_together(regtest_node):
    node = regtest_node
    a, b, c, d = Key(), Key(taproot=True), Key(), Key()
    txid, vout, value = _fund(node, a, 500_000)
    tx1 = _spend([(txid, vout, value, a)], [(b.spk, 490_000)])
    tx2 = _spend([(tx1.txid().hex(), 0, 490_000, b)], [(c.spk, 480_000)])
    tx3 = _spend([(tx2.txid().hex(), 0, 480_000, c)], [(d.spk, 470_000)])
    res = node.cli("testmempoolaccept", [t.serialize().hex() for t in (tx1, tx2, tx3)])
    assert [r["allowed"] for r in res] == [True, True, True]
    for t in (tx1, tx2, tx3):
        node.cli("sendrawtransaction", t.serialize().hex())
    entry = node.cli("getmempoolentry", tx3.txid().hex())
    assert entry["depends"] == [tx2.txid().hex()]
    with node.electrum() as e:
        sh = scripthash(d.spk.data)
        assert e.call("blockchain.scripthash.get_mempool", sh) == [
            {"tx_hash": tx3.txid().hex(), "height": -1, "fee": 10_000}
        ]
    block = node.mine(1)[0]
    txids = node.cli("getblock", block)["tx"]
    assert txids[1:] == [t.txid().hex() for t in (tx1, tx2, tx3)]
    coinbase = node.cli("getblock", block, 2)["tx"][0]
    subsidy = (50 * 100_000_000) >> (node.height() // 150)
    assert round(coinbase["vout"][0]["value"] * 100_000_000) == subsidy + 30_000
    assert node.cli("getrawmempool") == []


def test_the_kernel_refuses_a_block_with_an_invalid_transaction(regtest_node):
    node = regtest_node
    key, dest = Key(), Key()
    txid, vout, value = _fund(node, key, 100_000)
    bad = _spend([(txid, vout, value, key)], [(dest.spk, 99_000)], corrupt=True)
    height, tip = node.height(), node.cli("getbestblockhash")
    with pytest.raises(RpcCallError) as info:
        node.cli("generateblock", dest.address, [bad.serialize().hex()])
    assert info.value.code == -25 and info.value.message.startswith("TestBlockValidity failed:")
    assert "block-script-verify-flag-failed" in info.value.message  # the kernel's own reason
    assert (node.height(), node.cli("getbestblockhash")) == (height, tip)
    good = _spend([(txid, vout, value, key)], [(dest.spk, 99_000)])
    mined = node.cli("generateblock", dest.address, [good.serialize().hex()])
    assert node.cli("getblock", mined["hash"])["tx"][1] == good.txid().hex()
