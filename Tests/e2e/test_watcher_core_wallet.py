"""airlock-watcher syncing through Bitcoin Core RPC: the node-side watch-only wallet (default name
`airlock-<wallet>`, created blank, descriptors imported with ranges that grow with discovery) with full history
including spends, and the `scantxoutset` fallback on a node without wallet support (`--disable-wallet`)."""

from __future__ import annotations

from test_watcher_send import SigningAccount, jout, send_json, sign_and_broadcast, watcher


def core_url(node, wallet: str | None = None) -> str:
    path = f"/wallet/{wallet}" if wallet else ""
    return f"bitcoind://127.0.0.1:{node.rpc_port}{path}?cookie={node.cookie}"


def restart_with(node, *flags: str) -> None:
    node.stop()
    node.extra_args = tuple(flags)
    node._spawn(0, 0, 60)


def test_wallet_mode_gives_full_history_with_spends(run, tmp_path, fresh_regtest_node):
    node = fresh_regtest_node
    account = SigningAccount("wpkh")
    watcher(run, "import", "-", "--name", "w", "--network", "regtest", input=account.descriptor)
    watcher(run, "node", "set", core_url(node))
    tested = jout(watcher(run, "node", "test", "--json"))
    assert tested["mode"] == "wallet airlock-w (not on the node yet: the first sync creates it)"
    node.send_to(account.address(0), 200_000)
    node.send_to(account.address(1), 300_000)
    node.mine(1)
    synced = jout(watcher(run, "sync", "--json"))
    assert synced["mode"] == "wallet airlock-w" and synced["balance"] == 500_000
    assert "airlock-w" in node.cli("listwallets")
    info = node.cli("getwalletinfo", wallet="airlock-w")
    assert (info["private_keys_enabled"], info["blank"], info["descriptors"]) == (False, True, True)
    descs = node.cli("listdescriptors", wallet="airlock-w")["descriptors"]
    assert sorted(d["desc"].split("#")[0] for d in descs) == sorted(str(d) for d in (account.receive, account.change))
    assert all(d["range"][0] == 0 and d["range"][1] >= 19 for d in descs)
    assert jout(watcher(run, "node", "test", "--json"))["mode"] == "wallet airlock-w"
    assert b"via wallet airlock-w" in watcher(run, "sync").stdout

    # A spend: in the history while unconfirmed and after mining, with its fee; the spent coins are gone.
    unsigned = tmp_path / "unsigned.psbt"
    sent = send_json(run, "250000sat", unsigned)
    assert sign_and_broadcast(run, unsigned, account, tmp_path / "signed.psbt") == sent["txid"]
    watcher(run, "sync")
    history = {h["txid"]: h for h in jout(watcher(run, "history", "--json"))}
    spend = history[sent["txid"]]
    assert (spend["height"], spend["net"], spend["fee"]) == (None, -(250_000 + sent["fee"]), sent["fee"])
    node.mine(1)
    watcher(run, "sync")
    history = {h["txid"]: h for h in jout(watcher(run, "history", "--json"))}
    assert len(history) == 3 and history[sent["txid"]]["height"] == node.height()
    left = 500_000 - 250_000 - sent["fee"]
    balance = jout(watcher(run, "balance", "--json"))
    assert (balance["confirmed"], balance["unconfirmed"]) == (left, 0)
    spent_inputs = {i["outpoint"] for i in sent["inputs"]}
    assert not spent_inputs & {f"{u['txid']}:{u['vout']}" for u in jout(watcher(run, "utxos", "--json"))}
    assert round(node.cli("getbalances", wallet="airlock-w")["mine"]["trusted"] * 100_000_000) == left

    # After a restart the node wallet is not loaded (no load_on_startup): sync loads it and carries on.
    node.restart()
    assert node.cli("listwallets") == []
    watcher(run, "node", "set", core_url(node))  # the restarted node listens on a new port
    synced = jout(watcher(run, "sync", "--json"))
    assert synced["mode"] == "wallet airlock-w" and synced["balance"] == left
    assert node.cli("listwallets") == ["airlock-w"]


def test_wallet_mode_widens_the_imported_range_as_sync_discovers_addresses(run, fresh_regtest_node):
    """With a node keypool of 5 (Core tops a descriptor up to next_index + keypool), addresses 15 and 30 are only
    watched once the sync re-imports the descriptor with a larger range, which rescans the chain."""
    node = fresh_regtest_node
    restart_with(node, "--keypool", "5")
    account = SigningAccount("wpkh")
    watcher(run, "import", "-", "--name", "w", "--network", "regtest", input=account.descriptor)
    watcher(run, "node", "set", core_url(node, "deep"))
    node.send_to(account.address(15), 15_000)
    node.send_to(account.address(30), 30_000)
    node.mine(1)
    synced = jout(watcher(run, "sync", "--json"))
    assert synced["mode"] == "wallet deep"
    assert synced["balance"] == 45_000
    receive = [
        d
        for d in node.cli("listdescriptors", wallet="deep")["descriptors"]
        if d["desc"].split("#")[0] == str(account.receive)
    ]
    assert receive[0]["range"][1] >= 30 + 20  # the gap after the last used address is watched too
    used = [a["index"] for a in jout(watcher(run, "addresses", "--json")) if a["used"]]
    assert used == [15, 30]


def test_scantxoutset_fallback_on_a_node_without_wallet_support(run, tmp_path, fresh_regtest_node):
    node = fresh_regtest_node
    restart_with(node, "--disable-wallet")
    account = SigningAccount("wpkh")
    watcher(run, "import", "-", "--name", "w", "--network", "regtest", input=account.descriptor)
    watcher(run, "node", "set", core_url(node))
    assert jout(watcher(run, "node", "test", "--json"))["mode"] == "scantxoutset (the node has no wallet support)"
    node.send_to(account.address(0), 120_000)
    node.send_to(account.address(1), 80_000)
    node.mine(1)
    synced = jout(watcher(run, "sync", "--json"))
    assert synced["mode"] == "scantxoutset (the node has no wallet support)"
    assert synced["balance"] == 200_000
    unsigned = tmp_path / "unsigned.psbt"
    sent = send_json(run, "150000sat", unsigned)
    sign_and_broadcast(run, unsigned, account, tmp_path / "signed.psbt")
    node.mine(1)
    watcher(run, "sync")
    balance = jout(watcher(run, "balance", "--json"))
    assert (balance["confirmed"], balance["unconfirmed"]) == (200_000 - 150_000 - sent["fee"], 0)
