"""The regtest node's watch-only descriptor wallet RPCs, checked against the chain facts: what the faucet paid, the
confirmations after mining, spent coins leaving listunspent, replaced transactions leaving the balance, and Core's
errors for bad parameters and wallet endpoints."""

from __future__ import annotations

import os
import time
import uuid

import pytest
from embit import bip32
from embit import script as escript
from embit.descriptor import Descriptor
from embit.descriptor.checksum import add_checksum
from embit.networks import NETWORKS
from embit.transaction import Transaction, TransactionInput, TransactionOutput

from regtest.cli import RpcCallError, call
from regtest.testing import sign_p2wpkh

NET = NETWORKS["regtest"]
SATS = 100_000_000


def sats(btc_amount: float) -> int:
    return round(btc_amount * SATS)


class Account:
    """A fresh BIP32 account with receive/change descriptors of one script type (2-of-3 for wsh)."""

    PATHS = {
        "wpkh": "84h/1h/0h",
        "sh-wpkh": "49h/1h/0h",
        "pkh": "44h/1h/0h",
        "tr": "86h/1h/0h",
        "wsh-multi": "48h/1h/0h/2h",
    }

    def __init__(self, kind: str = "wpkh"):
        self.kind = kind
        self.roots = [
            bip32.HDKey.from_seed(os.urandom(32), version=NET["xprv"]) for _ in range(3 if kind == "wsh-multi" else 1)
        ]
        self.path = self.PATHS[kind]

    def _key(self, root, branch: int) -> str:
        xpub = root.derive("m/" + self.path).to_public().to_base58(NET["xpub"])
        return f"[{root.my_fingerprint.hex()}/{self.path}]{xpub}/{branch}/*"

    def desc(self, branch: int) -> str:
        k = [self._key(r, branch) for r in self.roots]
        body = {
            "wpkh": f"wpkh({k[0]})",
            "sh-wpkh": f"sh(wpkh({k[0]}))",
            "pkh": f"pkh({k[0]})",
            "tr": f"tr({k[0]})",
            "wsh-multi": f"wsh(sortedmulti(2,{','.join(k)}))",
        }[self.kind]
        return add_checksum(body)

    def spk(self, branch: int, index: int) -> escript.Script:
        return Descriptor.from_string(self.desc(branch).split("#")[0]).derive(index).script_pubkey()

    def address(self, branch: int, index: int) -> str:
        return self.spk(branch, index).address(NET)

    def privkey(self, branch: int, index: int):
        return self.roots[0].derive(f"m/{self.path}/{branch}/{index}").key

    def imports(self, timestamp=0) -> list[dict]:
        return [
            {"desc": self.desc(0), "timestamp": timestamp, "active": True, "internal": False},
            {"desc": self.desc(1), "timestamp": timestamp, "active": True, "internal": True},
        ]


def new_wallet(node, account: Account | None = None, timestamp=0) -> str:
    name = "w-" + uuid.uuid4().hex[:10]
    assert node.cli("createwallet", name, True, True) == {"name": name}
    if account is not None:
        assert node.cli("importdescriptors", account.imports(timestamp), wallet=name) == [{"success": True}] * 2
    return name


def named(node, method: str, params: dict, wallet: str | None = None):
    return call(node.datadir, method, params, rpc_port=node.rpc_port, wallet=wallet)


def rpc_error(fn, *args, **kwargs) -> RpcCallError:
    with pytest.raises(RpcCallError) as info:
        fn(*args, **kwargs)
    return info.value


def balances(node, wallet: str) -> dict:
    mine = node.cli("getbalances", wallet=wallet)["mine"]
    return {k: sats(v) for k, v in mine.items()}


# --- wallets and endpoints ----------------------------------------------------------------------------------------


def test_createwallet_is_watch_only_and_endpoints_follow_cores_rules(fresh_regtest_node):
    node = fresh_regtest_node
    err = rpc_error(node.cli, "getbalances")
    assert (err.code, err.message) == (
        -18,
        "No wallet is loaded. Load a wallet using loadwallet or create a new one "
        "with createwallet. (Note: A default wallet is no longer automatically "
        "created)",
    )
    err = rpc_error(node.cli, "createwallet", "keys")
    assert err.code == -4 and "disable_private_keys=true" in err.message
    err = rpc_error(
        named, node, "createwallet", {"wallet_name": "x", "disable_private_keys": True, "descriptors": False}
    )
    assert err.code == -4 and err.message.startswith("BDB wallet creation is deprecated")
    err = rpc_error(
        named, node, "createwallet", {"wallet_name": "x", "disable_private_keys": True, "passphrase": "secret"}
    )
    assert err.code == -4 and err.message.startswith("Passphrase provided but private keys are disabled.")
    err = rpc_error(node.cli, "createwallet", "../escape", True)
    assert err.code == -4
    assert node.cli("listwallets") == []

    # Named and positional params as Core; one wallet loaded: `/` serves it.
    assert named(node, "createwallet", {"wallet_name": "a", "disable_private_keys": True, "blank": True}) == {
        "name": "a"
    }
    info = node.cli("getwalletinfo")
    assert (info["walletname"], info["private_keys_enabled"], info["descriptors"], info["blank"]) == (
        "a",
        False,
        True,
        True,
    )
    assert node.cli("getbalances")["mine"] == {"trusted": 0, "untrusted_pending": 0, "immature": 0}
    err = rpc_error(node.cli, "createwallet", "a", True)
    assert err.code == -4 and err.message.endswith("Database already exists.")

    # Two wallets: `/` is ambiguous (-19), `/wallet/<name>` picks one, an unknown name is -18.
    assert node.cli("createwallet", "b", True, False, "", False, True, True) == {"name": "b"}
    assert sorted(node.cli("listwallets")) == ["a", "b"]
    err = rpc_error(node.cli, "getwalletinfo")
    assert (err.code, err.message) == (
        -19,
        "Wallet file not specified (must request wallet RPC through /wallet/<filename> uri-path).",
    )
    assert node.cli("getwalletinfo", wallet="b")["walletname"] == "b"
    err = rpc_error(node.cli, "getwalletinfo", wallet="nope")
    assert (err.code, err.message) == (-18, "Requested wallet does not exist or is not loaded")
    assert node.cli("getblockcount", wallet="a") == node.height()  # node RPCs work on wallet paths too

    acct = Account()
    assert node.cli("importdescriptors", acct.imports(), wallet="a") == [{"success": True}] * 2
    assert node.cli("unloadwallet", "a") == {}
    assert node.cli("listwallets") == ["b"]
    assert node.cli("getwalletinfo")["walletname"] == "b"  # one loaded again: `/` serves it
    err = rpc_error(node.cli, "loadwallet", "nope")
    assert err.code == -18 and err.message.endswith("Path does not exist.")
    assert node.cli("loadwallet", "a") == {"name": "a"}
    err = rpc_error(node.cli, "loadwallet", "a")
    assert (err.code, err.message) == (-35, 'Wallet "a" is already loaded.')

    # Persisted across a restart; `b` was created with load_on_startup=true, `a` was not.
    node.restart()
    assert node.cli("listwallets") == ["b"]
    assert node.cli("loadwallet", "a") == {"name": "a"}
    descs = node.cli("listdescriptors", wallet="a")
    assert descs["wallet_name"] == "a"
    assert sorted(d["desc"] for d in descs["descriptors"]) == sorted([acct.desc(0), acct.desc(1)])
    assert {d["internal"] for d in descs["descriptors"]} == {False, True}


def test_wallet_rpcs_do_not_exist_with_wallet_disabled(fresh_regtest_node):
    node = fresh_regtest_node
    node.stop()
    node.extra_args = ("--disable-wallet",)
    node._spawn(0, 0, 60)
    for method in ("listwallets", "createwallet", "getbalances"):
        err = rpc_error(node.cli, method)
        assert (err.code, err.message) == (-32601, "Method not found")
    assert node.cli("getblockcount") == 0


def test_importdescriptors_checks_each_request_as_core(regtest_node):
    node = regtest_node
    acct = Account()
    w = new_wallet(node)
    d0 = acct.desc(0)
    bad_sum = d0[:-1] + ("a" if d0[-1] != "a" else "b")
    xprv = acct.roots[0].to_base58(NET["xprv"])
    requests = [
        {"desc": d0.split("#")[0], "timestamp": 0},
        {"desc": bad_sum, "timestamp": 0},
        {"desc": d0, "timestamp": 0, "range": [-1, 10]},
        {"desc": d0, "timestamp": 0, "range": [2, 1]},
        {"desc": d0, "timestamp": 0, "range": [0, 1_000_001]},
        {"desc": d0, "timestamp": 0, "range": -1},
        {"desc": d0},
        {"desc": d0, "timestamp": "yesterday"},
        {"desc": add_checksum(f"wpkh({xprv}/0/*)"), "timestamp": 0},
        {"desc": add_checksum(f"addr({acct.address(0, 0)})"), "timestamp": 0, "range": 5},
        {"desc": add_checksum(f"addr({acct.address(0, 0)})"), "timestamp": 0, "active": True},
        {"timestamp": 0},
        {"desc": d0, "timestamp": "now", "range": [0, 19]},
    ]
    res = node.cli("importdescriptors", requests, wallet=w)
    errors = [(r["error"]["code"], r["error"]["message"]) if not r["success"] else None for r in res]
    assert errors[0] == (-5, "Missing checksum")
    assert errors[1][0] == -5 and errors[1][1].startswith("Provided checksum")
    assert errors[2] == (-8, "Range should be greater or equal than 0")
    assert errors[3] == (-8, "Range specified as [begin,end] must not have begin after end")
    assert errors[4] == (-8, "Range is too large")
    assert errors[5] == (-8, "End of range is too high")
    assert errors[6] == (-3, "Missing required timestamp field for key")
    assert errors[7] == (-3, 'Expected number or "now" timestamp value for key. got type string')
    assert errors[8] == (-4, "Cannot import private keys to a wallet with private keys disabled")
    assert errors[9] == (-8, "Range should not be specified for an un-ranged descriptor")
    assert errors[10] == (-8, "Active descriptors must be ranged")
    assert errors[11] == (-8, "Descriptor not found.")
    assert errors[12] is None
    listed = node.cli("listdescriptors", wallet=w)["descriptors"]
    assert [(d["desc"], d["active"], d["range"][0]) for d in listed] == [(d0, False, 0)]
    assert listed[0]["range"][1] >= 19
    # A re-import must include the current range (Core's "new range must include current range").
    res = node.cli("importdescriptors", [{"desc": d0, "timestamp": 0, "range": [5, 8]}], wallet=w)
    assert res[0]["error"]["message"] == f"new range must include current range = [0,{listed[0]['range'][1]}]"
    res = node.cli("importdescriptors", [{"desc": d0, "timestamp": 0, "range": [0, 500]}], wallet=w)
    assert res == [{"success": True}]
    assert node.cli("listdescriptors", wallet=w)["descriptors"][0]["range"] == [0, 500]


# --- following the chain ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["wpkh", "sh-wpkh", "pkh", "tr", "wsh-multi"])
def test_wallet_sees_payments_of_every_script_type_with_confirmations(regtest_node, kind):
    node = regtest_node
    acct = Account(kind)
    # Paid before the wallet exists: the import's rescan (timestamp 0, from genesis) must find it.
    before = node.send_to(acct.address(0, 2), 150_000)
    node.mine(1)
    w = new_wallet(node, acct)
    unspent = node.cli("listunspent", wallet=w)
    assert [(u["txid"], u["address"], sats(u["amount"]), u["confirmations"]) for u in unspent] == [
        (before, acct.address(0, 2), 150_000, 1)
    ]
    assert unspent[0]["scriptPubKey"] == acct.spk(0, 2).data.hex()
    assert unspent[0]["parent_descs"] == [acct.desc(0)]
    assert balances(node, w) == {"trusted": 150_000, "untrusted_pending": 0, "immature": 0}
    # Paid after: the wallet follows the mempool, then the blocks.
    after = node.send_to(acct.address(1, 0), 40_000)
    assert balances(node, w) == {"trusted": 150_000, "untrusted_pending": 40_000, "immature": 0}
    assert [u["txid"] for u in node.cli("listunspent", wallet=w)] == [before]
    pending = [u for u in node.cli("listunspent", 0, wallet=w) if u["txid"] == after]
    assert [(u["confirmations"], u["safe"], sats(u["amount"])) for u in pending] == [(0, False, 40_000)]
    tx = node.cli("gettransaction", after, wallet=w)
    assert (tx["confirmations"], tx["trusted"], sats(tx["amount"])) == (0, False, 40_000)
    assert tx["hex"] == node.cli("getrawtransaction", after)
    node.mine(2)
    tx = node.cli("gettransaction", after, wallet=w)
    chain_tx = node.cli("getrawtransaction", after, True)
    assert (tx["confirmations"], tx["blockhash"]) == (2, chain_tx["blockhash"])
    assert tx["blockheight"] == node.height() - 1
    assert tx["details"] == [
        {
            "address": acct.address(1, 0),
            "parent_descs": [acct.desc(1)],
            "category": "receive",
            "amount": 0.0004,
            "vout": 0,
        }
    ]
    assert node.cli("gettransaction", before, wallet=w)["confirmations"] == 3
    assert balances(node, w) == {"trusted": 190_000, "untrusted_pending": 0, "immature": 0}
    listed = node.cli("listtransactions", wallet=w)
    assert [(e["txid"], e["category"], e["confirmations"]) for e in listed] == [
        (before, "receive", 3),
        (after, "receive", 2),
    ]
    # Filters and bad params.
    assert [u["txid"] for u in node.cli("listunspent", 1, 2, wallet=w)] == [after]
    assert [u["txid"] for u in node.cli("listunspent", 0, 9999, [acct.address(0, 2)], wallet=w)] == [before]
    err = rpc_error(node.cli, "listunspent", 0, 9999, ["notanaddress"], wallet=w)
    assert (err.code, err.message) == (-5, "Invalid Bitcoin address: notanaddress")
    err = rpc_error(node.cli, "listunspent", 0, 9999, [acct.address(0, 2)] * 2, wallet=w)
    assert (err.code, err.message) == (-8, f"Invalid parameter, duplicated address: {acct.address(0, 2)}")
    err = rpc_error(node.cli, "gettransaction", "00" * 32, wallet=w)
    assert (err.code, err.message) == (-5, "Invalid or non-wallet transaction id")
    err = rpc_error(node.cli, "listunspent", "one", wallet=w)
    assert err.code == -3
    # listsinceblock from the block that confirmed `before`: only `after` is newer.
    since = node.cli("listsinceblock", node.cli("getrawtransaction", before, True)["blockhash"], wallet=w)
    assert [e["txid"] for e in since["transactions"]] == [after]
    assert since["lastblock"] == node.cli("getbestblockhash")
    assert {e["txid"] for e in node.cli("listsinceblock", wallet=w)["transactions"]} == {before, after}


def _spend_wpkh(
    acct: Account,
    coins: list[tuple[str, int, int, int, int]],
    outputs: list[tuple[bytes, int]],
    sequence: int = 0xFFFFFFFD,
) -> Transaction:
    """Spends (txid, vout, value, branch, index) coins of a wpkh account to (script, value) outputs."""
    tx = Transaction(
        version=2,
        vin=[TransactionInput(bytes.fromhex(t), v, sequence=sequence) for t, v, _, _, _ in coins],
        vout=[TransactionOutput(value, escript.Script(spk)) for spk, value in outputs],
    )
    for n, (_, _, value, branch, index) in enumerate(coins):
        sign_p2wpkh(tx, n, acct.privkey(branch, index), value)
    return tx


def test_spent_coins_leave_listunspent_and_sends_are_listed(regtest_node):
    node = regtest_node
    acct = Account("wpkh")
    funded = node.send_to(acct.address(0, 0), 300_000)
    node.mine(1)
    w = new_wallet(node, acct)
    external = Account("wpkh").spk(0, 0).data
    spend = _spend_wpkh(acct, [(funded, 0, 300_000, 0, 0)], [(external, 100_000), (acct.spk(1, 0).data, 199_000)])
    txid = node.cli("sendrawtransaction", spend.serialize().hex())
    unspent = node.cli("listunspent", 0, wallet=w)
    # The spent coin is gone at once; the change is trusted (it is from the wallet itself).
    assert [(u["txid"], u["vout"], sats(u["amount"]), u["safe"]) for u in unspent] == [(txid, 1, 199_000, True)]
    assert balances(node, w) == {"trusted": 199_000, "untrusted_pending": 0, "immature": 0}
    tx = node.cli("gettransaction", txid, wallet=w)
    assert (sats(tx["amount"]), sats(tx["fee"])) == (-100_000, -1_000)
    external_addr = escript.Script(external).address(NET)
    assert tx["details"] == [
        {"address": external_addr, "category": "send", "amount": -0.001, "vout": 0, "fee": -0.00001, "abandoned": False}
    ]
    node.mine(1)
    last = node.cli("listtransactions", "*", 1, wallet=w)
    assert [(e["txid"], e["category"], e["address"], e["confirmations"]) for e in last] == [
        (txid, "send", external_addr, 1)
    ]
    assert [u["txid"] for u in node.cli("listunspent", wallet=w)] == [txid]
    assert node.cli("getwalletinfo", wallet=w)["txcount"] == 2


def test_an_rbf_eviction_leaves_the_wallet_balance_and_a_confirmed_conflict_is_negative(regtest_node):
    node = regtest_node
    payer, acct = Account("wpkh"), Account("wpkh")
    funded = node.send_to(payer.address(0, 0), 500_000)
    node.mine(1)
    w = new_wallet(node, acct)
    to_us = _spend_wpkh(
        payer, [(funded, 0, 500_000, 0, 0)], [(acct.spk(0, 0).data, 400_000), (payer.spk(1, 0).data, 99_000)]
    )
    node.cli("sendrawtransaction", to_us.serialize().hex())
    assert balances(node, w)["untrusted_pending"] == 400_000
    # The payer double-spends it to itself with a higher fee; the node replaces it.
    back = _spend_wpkh(payer, [(funded, 0, 500_000, 0, 0)], [(payer.spk(1, 1).data, 490_000)])
    node.cli("sendrawtransaction", back.serialize().hex())
    assert node.cli("getrawmempool").count(to_us.txid().hex()) == 0
    assert balances(node, w) == {"trusted": 0, "untrusted_pending": 0, "immature": 0}
    assert node.cli("listunspent", 0, wallet=w) == []
    tx = node.cli("gettransaction", to_us.txid().hex(), wallet=w)
    assert (tx["confirmations"], tx["trusted"], tx["mempoolconflicts"]) == (0, False, [back.txid().hex()])
    node.mine(1)
    tx = node.cli("gettransaction", to_us.txid().hex(), wallet=w)
    assert tx["confirmations"] == -1  # conflicted by a transaction one block deep
    assert balances(node, w) == {"trusted": 0, "untrusted_pending": 0, "immature": 0}


def test_coinbase_to_the_wallet_is_immature_until_100_confirmations(regtest_node):
    node = regtest_node
    acct = Account("wpkh")
    w = new_wallet(node, acct)
    block = node.mine(1, acct.address(0, 0))[0]
    cb = node.cli("getblock", block, 2)["tx"][0]
    value = sats(cb["vout"][0]["value"])
    assert balances(node, w) == {"trusted": 0, "untrusted_pending": 0, "immature": value}
    entry = node.cli("listtransactions", wallet=w)[-1]
    assert (entry["category"], entry["txid"]) == ("immature", cb["txid"])
    assert node.cli("listunspent", wallet=w) == []
    node.mine(99)  # depth 100: Core's wallet still counts it immature (101 - depth blocks to maturity)
    assert balances(node, w)["immature"] == value
    node.mine(1)
    assert balances(node, w) == {"trusted": value, "untrusted_pending": 0, "immature": 0}
    assert node.cli("listtransactions", wallet=w)[-1]["category"] == "generate"


# --- import timestamps against the chain's clock ------------------------------------------------------------------


def test_import_timestamp_is_compared_with_the_chains_time_not_the_wall_clock(fresh_regtest_node):
    """Blocks dated almost two hours ahead of the wall clock (mined in a burst; the kernel refuses more): an import
    whose timestamp lies after the wall clock but before the payment's block rescans from there, as Core does (the
    chain's time decides, not the clock), and finds the payment; a timestamp past the tip rescans the last two hours
    of the chain (Core's window). The control: a payment five hours before the tip, imported with a later timestamp,
    is not found."""
    node = fresh_regtest_node
    now = int(time.time())
    node.cli("setmocktime", now - 5 * 3600)
    node.mine(3)
    old = Account()
    node.send_to(old.address(0, 0), 30_000)
    node.mine(1)
    node.cli("setmocktime", now + 6600)
    accounts = [Account() for _ in range(2)]
    for acct in accounts:
        node.send_to(acct.address(0, 0), 50_000)
    [block] = node.mine(1)
    paid_at = node.cli("getblock", block)["time"]
    assert paid_at >= now + 6600 > time.time() + 3600  # the chain runs almost two hours ahead of the clock
    node.mine(2)
    for acct, timestamp in [(accounts[0], paid_at - 1800), (accounts[1], paid_at + 3 * 86_400)]:
        name = new_wallet(node, acct, timestamp)
        assert timestamp > time.time()  # "in the future" by the wall clock
        assert balances(node, name)["trusted"] == 50_000, timestamp - paid_at
    name = new_wallet(node, old, now)
    assert balances(node, name)["trusted"] == 0
    # "now" is the tip's median time past: a payment in the last blocks is found too.
    late = Account()
    node.send_to(late.address(0, 0), 20_000)
    node.mine(1)
    name = new_wallet(node, late, "now")
    assert balances(node, name)["trusted"] == 20_000
