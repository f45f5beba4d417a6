"""airlock-watcher against the regtest node: import (wpkh, tr, 2-of-3 wsh sortedmulti), receive, sync through
Electrum, Bitcoin Core RPC and Esplora, balances equal to what was mined and paid, a lying Electrum server detected,
SIGKILLed syncs, backup and restore, and bad input."""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import subprocess
import time
import uuid
from pathlib import Path

import pytest
from watcher_helpers import EsploraAdapter, LyingElectrumProxy, make_account


def watcher(run, *args, input=None, check=True):
    """Runs airlock-watcher with the arguments as given (shared options may stand before the subcommand)."""
    return run("airlock-watcher", *args, input=input, check=check)


def jout(proc):
    return json.loads(proc.stdout)


def import_account(run, account, name="w", *extra):
    return watcher(run, "import", "-", "--name", name, "--network", "regtest", *extra, input=account.descriptor)


def set_node(run, node, backend, extra=()):
    """`bitcoind` syncs through a node-side wallet of its own (a fresh name: the session node is shared)."""
    if backend == "electrum":
        url = f"electrum://127.0.0.1:{node.electrum_port}"
    elif backend == "bitcoind":
        url = f"bitcoind://127.0.0.1:{node.rpc_port}/wallet/airlock-{uuid.uuid4().hex[:12]}?cookie={node.cookie}"
    else:
        raise ValueError(backend)
    watcher(run, *extra, "node", "set", url)


def coinbase_value_to(node, block_hash: str, address: str) -> int:
    block = node.cli("getblock", block_hash, 2)
    coinbase = block["tx"][0]
    return sum(round(o["value"] * 100_000_000) for o in coinbase["vout"] if o["scriptPubKey"].get("address") == address)


def fund(node, account):
    """Pays the account: a confirmed payment to receive 0, a coinbase to receive 2 (immature), an unconfirmed
    payment to receive 1 and a confirmed one to change 4. Returns the expected balance in sats."""
    node.send_to(account.address(0), 150_000)
    node.send_to(account.address(4, change=True), 33_000)
    node.mine(1)
    [block] = node.mine(1, account.address(2))
    immature = coinbase_value_to(node, block, account.address(2))
    node.send_to(account.address(1), 70_000)
    return {"confirmed": 183_000, "unconfirmed": 70_000, "immature": immature}


@pytest.mark.parametrize("kind", ["wpkh", "tr", "wsh-multi"])
@pytest.mark.parametrize("backend", ["electrum", "bitcoind"])
def test_sync_balance_matches_payments(run, regtest_node, kind, backend):
    account = make_account(kind)
    imported = jout(import_account(run, account, "w", "--json"))
    assert imported["first_address"] == account.address(0)
    receive = jout(watcher(run, "receive", "--json"))
    assert receive["address"] == account.address(0)
    assert receive["uri"] == f"bitcoin:{account.address(0)}"
    # --new never repeats an address shown before (not even the one plain `receive` just showed); plain `receive`
    # keeps showing the lowest unused one.
    assert jout(watcher(run, "receive", "--new", "--json"))["address"] == account.address(1)
    assert jout(watcher(run, "receive", "--new", "--json"))["address"] == account.address(2)
    assert jout(watcher(run, "receive", "--json"))["address"] == account.address(0)
    expected = fund(regtest_node, account)
    set_node(run, regtest_node, backend)
    synced = jout(watcher(run, "sync", "--json"))
    assert synced["height"] == regtest_node.height()
    if backend == "bitcoind":
        assert synced["mode"].startswith("wallet airlock-")  # Core's wallet mode (the node has wallet support)
        node_wallet = synced["mode"].split(" ", 1)[1]
        mine = regtest_node.cli("getbalances", wallet=node_wallet)["mine"]
        assert {k: round(v * 100_000_000) for k, v in mine.items()} == {
            "trusted": expected["confirmed"],
            "untrusted_pending": expected["unconfirmed"],
            "immature": expected["immature"],
        }
    else:
        assert synced["mode"] is None
    balance = jout(watcher(run, "balance", "--json"))
    assert {k: balance[k] for k in expected} == expected
    assert balance["total"] == sum(expected.values())
    utxos = jout(watcher(run, "utxos", "--json"))
    assert sorted(u["value"] for u in utxos) == sorted([150_000, 33_000, 70_000, expected["immature"]])
    assert {u["address"] for u in utxos} == {
        account.address(0),
        account.address(1),
        account.address(2),
        account.address(4, change=True),
    }
    history = jout(watcher(run, "history", "--json"))
    assert len(history) == 4
    assert sum(h["net"] for h in history) == balance["total"]
    if backend == "electrum":
        assert all(h["verified"] for h in history if h["height"] is not None)
    # history --limit/--offset: the same entries as the full history's slice, read page by page (issue 33).
    for limit, offset in [(1, 0), (2, 1), (3, 3), (1000, 0)]:
        page = jout(watcher(run, "history", "--json", "--limit", str(limit), "--offset", str(offset)))
        assert page == history[offset : offset + limit]
    assert watcher(run, "history", "--limit", "2").stdout.splitlines()[-1] == b"transactions 1-2 of 4"
    for limit in ("-1", "5000"):
        refused = watcher(run, "history", f"--limit={limit}", check=False)
        assert refused.returncode == 2
        assert f"the page size must be between 1 and 1000, not {limit}".encode() in refused.stderr
    assert watcher(run, "history", "--offset", "1", check=False).returncode == 1
    # receive moves past the used addresses; a second sync changes nothing.
    assert jout(watcher(run, "receive", "--json"))["address"] == account.address(3)
    watcher(run, "sync")
    assert jout(watcher(run, "balance", "--json")) == balance
    used = [a["index"] for a in jout(watcher(run, "addresses", "--json")) if a["used"]]
    assert used == [0, 1, 2]
    # send --dry-run: confirmed mature coins pay 100,000 sat at 2 sat/vB with change to the next change address.
    from regtest.testing import FAUCET_ADDRESS

    plan = jout(
        watcher(run, "send", "--to", FAUCET_ADDRESS, "--amount", "100000sat", "--fee-rate", "2", "--dry-run", "--json")
    )
    values = {u["outpoint"]: u["value"] for u in utxos}
    spent = sum(values[i["outpoint"]] for i in plan["inputs"])
    assert spent == sum(o["value"] for o in plan["outputs"]) + plan["fee"]
    assert all(values[i["outpoint"]] != expected["immature"] for i in plan["inputs"])  # immature coinbase not spent
    assert plan["rbf"] and regtest_node.height() - 100 <= plan["locktime"] <= regtest_node.height()
    change = [o for o in plan["outputs"] if o["change"]]
    if change:
        assert change[0]["script"] == account.change.derive(5).script_pubkey().serialize()[1:].hex()


def test_esplora_backend(run, regtest_node):
    account = make_account("wpkh")
    import_account(run, account)
    expected = fund(regtest_node, account)
    esplora = EsploraAdapter(regtest_node)
    try:
        watcher(run, "node", "set", f"esplora+http://127.0.0.1:{esplora.port}")
        tested = jout(watcher(run, "node", "test", "--json"))
        assert tested["height"] == regtest_node.height()
        watcher(run, "sync")
        balance = jout(watcher(run, "balance", "--json"))
        assert {k: balance[k] for k in expected} == expected
        assert all(h["verified"] for h in jout(watcher(run, "history", "--json")) if h["height"] is not None)
    finally:
        esplora.close()


def db_rows(data_dir: Path):
    con = sqlite3.connect(data_dir / "wallet.sqlite")
    try:
        return (
            con.execute("SELECT txid, height, block_hash, verified FROM tx ORDER BY txid").fetchall(),
            con.execute("SELECT txid, vout, value FROM utxo ORDER BY txid, vout").fetchall(),
        )
    finally:
        con.close()


@pytest.mark.parametrize("mode", ["tx", "merkle", "history"])
def test_lying_electrum_server_is_detected(run, home, regtest_node, mode):
    account = make_account("wpkh")
    import_account(run, account)
    regtest_node.send_to(account.address(0), 120_000)
    regtest_node.mine(1)
    set_node(run, regtest_node, "electrum")
    watcher(run, "sync")
    before = [watcher(run, c, "--json").stdout for c in ("balance", "history", "utxos")]
    rows_before = db_rows(home.data_dir)
    # New money that an honest sync would show: the lie must hide nothing and add nothing.
    regtest_node.send_to(account.address(1), 80_000)
    tip = regtest_node.mine(1)[0]
    unrelated = regtest_node.cli("getblock", tip, 1)["tx"][0]  # a real coinbase that pays someone else
    proxy = LyingElectrumProxy(regtest_node.electrum_port, mode, unrelated, regtest_node.height())
    try:
        watcher(run, "node", "set", f"electrum://127.0.0.1:{proxy.port}")
        lied = watcher(run, "sync", check=False)
        assert lied.returncode == 5, lied.stderr
        assert b"verification" in lied.stderr
        assert proxy.altered > 0
    finally:
        proxy.close()
    assert [watcher(run, c, "--json").stdout for c in ("balance", "history", "utxos")] == before
    assert db_rows(home.data_dir) == rows_before
    set_node(run, regtest_node, "electrum")
    watcher(run, "sync")
    assert jout(watcher(run, "balance", "--json"))["confirmed"] == 200_000


def test_sync_survives_sigkill(run, bin_dir, home, fresh_regtest_node):
    node = fresh_regtest_node
    account = make_account("wpkh")
    import_account(run, account, "w", "--gap-limit", "3")
    expected = 0
    for i, index in enumerate([0, 2, 5, 8, 11, 13]):
        node.send_to(account.address(index), 10_000 + i)
        expected += 10_000 + i
    node.send_to(account.address(1, change=True), 5_000)
    expected += 5_000
    node.mine(1)
    set_node(run, node, "electrum")
    start = time.monotonic()
    watcher(run, "sync")
    full = time.monotonic() - start
    assert jout(watcher(run, "balance", "--json"))["confirmed"] == expected
    rng = random.Random(1234)
    cmd = [str(bin_dir / "airlock-watcher"), "sync"]
    killed_mid_sync = 0
    for round_ in range(50):
        if round_ == 25:  # halfway, new payments, so that the killed syncs also write
            node.send_to(account.address(16), 7_000)
            node.mine(1)
            expected += 7_000
        proc = subprocess.Popen(cmd, env=home.env, cwd=home.root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0, full * 1.2))
        if proc.poll() is None:
            killed_mid_sync += 1
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        done = watcher(run, "sync", "--json")
        assert jout(done)["balance"] == expected, f"round {round_}"
    assert killed_mid_sync >= 10
    con = sqlite3.connect(home.data_dir / "wallet.sqlite")
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()


def test_backup_restore_roundtrip(run, home, regtest_node, tmp_path):
    wpkh, multi = make_account("wpkh"), make_account("wsh-multi")
    import_account(run, wpkh, "single")
    import_account(run, multi, "vault")
    txid = regtest_node.send_to(wpkh.address(0), 90_000)
    regtest_node.send_to(multi.address(0), 60_000)
    regtest_node.mine(1)
    set_node(run, regtest_node, "electrum")
    for name in ("single", "vault"):
        watcher(run, "--wallet", name, "sync")
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        json.dumps({"type": "tx", "ref": txid, "label": "salary"})
        + "\n"
        + json.dumps({"type": "output", "ref": f"{txid}:0", "label": "cold", "spendable": False})
        + "\n"
        + json.dumps({"type": "addr", "ref": wpkh.address(0), "label": "first"})
        + "\n"
    )
    watcher(run, "--wallet", "single", "labels", "import", str(labels))
    watcher(run, "--wallet", "single", "receive", "--new")
    # Shared options stand before or after the subcommand alike.
    assert (
        watcher(run, "--wallet=single", "--json", "balance").stdout
        == watcher(run, "balance", "--wallet", "single", "--json").stdout
    )
    state = lambda extra: (  # noqa: E731
        [jout(watcher(run, *extra, "--wallet", n, "balance", "--json")) for n in ("single", "vault")],
        watcher(run, *extra, "--wallet", "single", "labels", "export", "-").stdout,
        jout(watcher(run, *extra, "wallets", "--json")),
    )
    before = state(())
    backup = tmp_path / "backup.json"
    watcher(run, "backup", "--out", str(backup))
    doc = json.loads(backup.read_text())
    assert doc["format"] == "airlock-watcher-backup" and doc["version"] == 1
    assert backup.stat().st_mode & 0o777 == 0o600  # it may hold the node's RPC password
    fresh = ["--data-dir", str(tmp_path / "fresh")]
    watcher(run, *fresh, "restore", str(backup))
    for name in ("single", "vault"):
        watcher(run, *fresh, "--wallet", name, "sync")
    after = state(fresh)
    assert after == before
    assert before[0][0]["frozen"] == 90_000
    # Restoring over data needs --force.
    again = watcher(run, *fresh, "restore", str(backup), check=False)
    assert again.returncode == 1 and b"--force" in again.stderr
    watcher(run, *fresh, "restore", str(backup), "--force")


def test_bad_input(run, regtest_node):
    account = make_account("wpkh")
    import_account(run, account)
    cases = [
        (("node", "set", "ftp://127.0.0.1:50001"), 2, b"unknown scheme"),
        (("node", "set", "127.0.0.1:50001"), 2, b"no scheme"),
        (("--wallet", "nosuch", "balance"), 2, b"no wallet named 'nosuch'"),
        (("receive", "--amount", "0.123456789btc"), 2, b"decimals"),
        (("receive", "--amount", "0.5"), 1, b"0.5btc"),
        (("receive", "--amount", "12abc"), 2, b"invalid --amount"),
        (("import", "-", "--name", "main", "--network", "main"), 2, b"network mismatch"),
        (("import", "-", "--name", "x"), 2, b"not a descriptor"),
        (("sync",), 1, b"no node configured"),
        (("labels", "import", "-"), 2, b"labels line 1"),
        (("restore", "-"), 2, b"not backup JSON"),
    ]
    for args, code, message in cases:
        stdin = None
        if args[0] == "import" and "main" in args:
            stdin = account.descriptor  # tpub keys with --network main
        elif args[0] == "import":
            stdin = "hello world"
        elif args[:2] == ("labels", "import"):
            stdin = '{"type": "tx", "ref": "not-a-txid", "label": "x"}\n'
        elif args[0] == "restore":
            stdin = "[]"
        proc = watcher(run, *args, input=stdin, check=False)
        assert proc.returncode == code, (args, proc.returncode, proc.stderr)
        assert message in proc.stderr, (args, proc.stderr)
        assert b"Fatal error" not in proc.stderr
    # send: the planner checks addresses, amounts and funds before anything is written.
    other_net = "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"  # a mainnet address
    mine = account.address(5)
    for args, message in [
        (("--to", other_net, "--amount", "0.001btc"), b"is not a regtest address"),
        (("--to", mine, "--amount", "0.000000001btc"), b"decimals"),
        (("--to", mine, "--amount", "21000001btc"), b"more than 21,000,000 BTC"),
        (("--to", mine, "--amount", "1btc"), b"insufficient funds"),
    ]:
        proc = watcher(run, "send", *args, "--fee-rate", "2", "--dry-run", check=False)
        assert proc.returncode == 2, (args, proc.stderr)
        assert message in proc.stderr, (args, proc.stderr)
    # A second wallet makes --wallet necessary.
    import_account(run, make_account("tr"), "other")
    proc = watcher(run, "balance", check=False)
    assert proc.returncode == 1 and b"--wallet" in proc.stderr
    # Importing the same name twice is refused.
    proc = watcher(
        run,
        "import",
        "-",
        "--name",
        "other",
        "--network",
        "regtest",
        input=make_account("wpkh").descriptor,
        check=False,
    )
    assert proc.returncode == 2 and b"exists already" in proc.stderr


def test_import_forms(run, tmp_path):
    """Two single-path descriptors, an xpub with origin (SLIP-132 version picks the script), a JSON export."""
    account = make_account("wpkh")
    receive_desc = account.descriptor.split("#")[0].replace("<0;1>", "0")
    change_desc = account.descriptor.split("#")[0].replace("<0;1>", "1")
    two = jout(
        watcher(
            run,
            "import",
            "-",
            "--name",
            "two",
            "--network",
            "regtest",
            "--json",
            input=receive_desc + "\n" + change_desc + "\n",
        )
    )
    assert two["first_address"] == account.address(0)
    key = account.descriptor.split("(")[1].split("/<0;1>")[0]  # [fp/84h/1h/0h]tpub...
    from embit import bip32
    from embit.networks import NETWORKS

    tpub = key.split("]")[1]
    vpub = bip32.HDKey.from_base58(tpub).to_base58(version=NETWORKS["regtest"]["zpub"])
    slip = jout(
        watcher(
            run, "import", "-", "--name", "slip", "--network", "regtest", "--json", input=key.split("]")[0] + "]" + vpub
        )
    )
    assert slip["first_address"] == account.address(0)
    assert slip["receive_descriptor"].startswith("wpkh(")
    export = {
        "chain": "XRT",
        "xfp": key[1:9].upper(),
        "bip84": {"name": "p2wpkh", "deriv": "m/84'/1'/0'", "xpub": tpub, "desc": account.descriptor},
    }
    exported = jout(watcher(run, "import", "-", "--json", input=json.dumps(export)))
    assert exported["name"] == "bip84" and exported["network"] == "regtest"
    assert exported["first_address"] == account.address(0)
