"""Coordinator features of airlock-watcher against the regtest node: coin freezing (BIP329 `spendable`), CPFP with
the package fee rate checked against the node's own ancestor accounting, wallet deletion with its confirmation, and
`inspect` of a PSBT with what the wallet knows (own inputs and outputs, labels)."""

from __future__ import annotations

import json
import sqlite3

from embit.psbt import PSBT
from embit.transaction import Transaction
from terminal import answers, run_in_pty
from test_watcher_send import jout, send_json, setup_wallet, sign, watcher

from regtest.testing import FAUCET_ADDRESS


def broadcast_signed(run, tmp_path, unsigned: bytes, account, name: str) -> str:
    signed = tmp_path / f"{name}.signed.psbt"
    signed.write_bytes(sign(unsigned, account))
    return watcher(run, "broadcast", str(signed)).stdout.decode().strip()


def test_frozen_coin_is_not_spent_and_travels_as_bip329_spendable(run, tmp_path, regtest_node):
    account = setup_wallet(run, regtest_node, "wpkh", [300_000, 200_000])
    coins = {u["value"]: f"{u['txid']}:{u['vout']}" for u in jout(watcher(run, "utxos", "--json"))}
    big, small = coins[300_000], coins[200_000]
    watcher(run, "labels", "import", "-", input=json.dumps({"type": "output", "ref": big, "label": "cold"}) + "\n")
    frozen = jout(watcher(run, "utxos", "freeze", big, "--json"))
    assert frozen == {"wallet": "w", "frozen": True, "outpoints": [big]}
    listed = {f"{u['txid']}:{u['vout']}": u["frozen"] for u in jout(watcher(run, "utxos", "--json"))}
    assert listed == {big: True, small: False}
    assert "frozen" in watcher(run, "utxos").stdout.decode()

    # Export: spendable false, label kept. 250,000 sat needs the frozen coin: refused; 150,000 takes the other one.
    exported = [json.loads(line) for line in watcher(run, "labels", "export", "-").stdout.decode().splitlines()]
    assert {"type": "output", "ref": big, "label": "cold", "spendable": False} in exported
    refused = watcher(
        run,
        "send",
        "--to",
        FAUCET_ADDRESS,
        "--amount",
        "250000sat",
        "--fee-rate",
        "2",
        "--out",
        str(tmp_path / "no.psbt"),
        check=False,
    )
    assert refused.returncode == 2 and b"insufficient" in refused.stderr.lower()
    sent = send_json(run, "150000sat", tmp_path / "a.psbt")
    assert [i["outpoint"] for i in sent["inputs"]] == [small]
    # Named with --utxo, a frozen coin is spent.
    named = jout(
        watcher(
            run,
            "send",
            "--to",
            FAUCET_ADDRESS,
            "--amount",
            "100000sat",
            "--fee-rate",
            "2",
            "--utxo",
            big,
            "--out",
            str(tmp_path / "b.psbt"),
            "--json",
        )
    )
    assert [i["outpoint"] for i in named["inputs"]] == [big]

    # Unfreeze keeps the label; a fresh data dir importing the exported labels has the coin frozen again.
    watcher(run, "utxos", "unfreeze", big)
    assert not any(u["frozen"] for u in jout(watcher(run, "utxos", "--json")))
    after = [json.loads(line) for line in watcher(run, "labels", "export", "-").stdout.decode().splitlines()]
    assert {"type": "output", "ref": big, "label": "cold", "spendable": True} in after
    labels_file = tmp_path / "labels.jsonl"
    labels_file.write_text("".join(json.dumps(x) + "\n" for x in exported))
    other = ["--data-dir", str(tmp_path / "other")]
    watcher(run, *other, "import", "-", "--name", "w", "--network", "regtest", input=account.descriptor)
    watcher(run, *other, "node", "set", f"electrum://127.0.0.1:{regtest_node.electrum_port}")
    watcher(run, *other, "sync")
    watcher(run, *other, "labels", "import", str(labels_file))
    restored = {f"{u['txid']}:{u['vout']}": u["frozen"] for u in jout(watcher(run, *other, "utxos", "--json"))}
    assert restored == {big: True, small: False}

    # Control and bad input: an outpoint the wallet does not hold, and one that does not parse, change nothing.
    missing = watcher(run, "utxos", "freeze", small.split(":")[0] + ":7", check=False)
    assert missing.returncode == 2 and b"no unspent output" in missing.stderr
    garbage = watcher(run, "utxos", "freeze", "nonsense", check=False)
    assert garbage.returncode == 2 and b"not an outpoint" in garbage.stderr
    assert not any(u["frozen"] for u in jout(watcher(run, "utxos", "--json")))


def test_cpfp_child_lifts_the_package_to_the_asked_rate(run, tmp_path, regtest_node):
    node = regtest_node
    account = setup_wallet(run, node, "wpkh", [400_000])
    parent_psbt = tmp_path / "parent.psbt"
    parent = send_json(run, "100000sat", parent_psbt, fee_rate="1")
    assert broadcast_signed(run, tmp_path, parent_psbt.read_bytes(), account, "parent") == parent["txid"]
    watcher(run, "sync")

    # Asking for less than the parent already pays is refused; so is an unknown parent.
    low = watcher(run, "bump", "--cpfp", parent["txid"], "--fee-rate", "0.5", "--out", str(tmp_path / "x"), check=False)
    assert low.returncode == 2 and b"already pays" in low.stderr
    unknown = watcher(run, "bump", "--cpfp", "11" * 32, "--fee-rate", "5", check=False)
    assert unknown.returncode == 2 and b"no transaction" in unknown.stderr

    child_psbt = tmp_path / "child.psbt"
    child = jout(watcher(run, "bump", "--cpfp", parent["txid"], "--fee-rate", "12", "--out", str(child_psbt), "--json"))
    assert child["parent"] == parent["txid"] and len(child["outputs"]) == 1
    unsigned = PSBT.parse(child_psbt.read_bytes())
    assert any(i.txid.hex() == parent["txid"] for i in unsigned.tx.vin)
    assert broadcast_signed(run, tmp_path, child_psbt.read_bytes(), account, "child") == child["txid"]

    # The package rate from the two transactions as broadcast (fees from their inputs' values).
    raw_parent = Transaction.parse(bytes.fromhex(node.cli("getrawtransaction", parent["txid"])))
    raw_child = Transaction.parse(bytes.fromhex(node.cli("getrawtransaction", child["txid"])))

    def fee(tx) -> int:
        spent = 0
        for vin in tx.vin:
            prev = Transaction.parse(bytes.fromhex(node.cli("getrawtransaction", vin.txid.hex())))
            spent += prev.vout[vin.vout].value
        return spent - sum(o.value for o in tx.vout)

    def vsize(tx) -> int:
        # BIP141: weight = 3 x the size without witnesses + the full size; vsize = weight / 4 rounded up.
        full = len(tx.serialize())
        witnesses = [vin.witness for vin in tx.vin]
        for vin in tx.vin:
            vin.witness = type(vin.witness)([])
        stripped = len(tx.serialize())
        for vin, w in zip(tx.vin, witnesses):
            vin.witness = w
        return (3 * stripped + full + 3) // 4

    parent_fee, child_fee = fee(raw_parent), fee(raw_child)
    parent_vsize, child_vsize = vsize(raw_parent), vsize(raw_child)
    assert parent_fee / parent_vsize < 1.5  # the parent was sent at 1 sat/vB
    package_rate = (parent_fee + child_fee) / (parent_vsize + child_vsize)
    assert package_rate >= 12
    assert package_rate < 12.5  # not wildly overpaid either
    entry = node.cli("getmempoolentry", child["txid"])
    assert entry["ancestorcount"] == 2 and entry["depends"] == [parent["txid"]]
    assert entry["ancestorsize"] == parent_vsize + child_vsize
    assert round(entry["fees"]["ancestor"] * 100_000_000) == parent_fee + child_fee
    node_rate = entry["fees"]["ancestor"] * 100_000_000 / entry["ancestorsize"]
    assert abs(node_rate - package_rate) < 1e-9
    node.mine(1)
    tip = node.height()
    for txid in (parent["txid"], child["txid"]):
        assert node.cli("getrawtransaction", txid, 1)["confirmations"] == 1
    watcher(run, "sync")
    history = {h["txid"]: h for h in jout(watcher(run, "history", "--json"))}
    assert history[parent["txid"]]["height"] == tip and history[child["txid"]]["height"] == tip


def test_wallets_delete_asks_and_refuses_without_a_terminal(run, bin_dir, home, regtest_node):
    setup_wallet(run, regtest_node, "wpkh", [50_000])
    watcher(
        run,
        "import",
        "-",
        "--name",
        "second",
        "--network",
        "regtest",
        "--birthday",
        "120",
        input=setup_second_descriptor(),
    )
    names = lambda: [w["name"] for w in jout(watcher(run, "wallets", "--json"))]  # noqa: E731
    assert names() == ["second", "w"]

    # No terminal, no --yes: nothing deleted, exit 4.
    refused = watcher(run, "wallets", "delete", "w", check=False, input=b"y\n")
    assert refused.returncode == 4 and b"no terminal" in refused.stderr
    assert names() == ["second", "w"]
    # On a terminal: asked; "n" keeps it, "y" deletes it.
    delete = [str(bin_dir / "airlock-watcher"), "wallets", "delete", "w"]
    code, seen = run_in_pty(delete, home.root, home.env, answers("[y/N]", "n"))
    assert code == 4 and "Delete wallet 'w'" in seen
    assert names() == ["second", "w"]
    code, seen = run_in_pty(delete, home.root, home.env, answers("[y/N]", "y"))
    assert code == 0 and "Delete wallet 'w'" in seen
    assert names() == ["second"]
    # --yes deletes without asking (and the birthday stored with it goes too); an unknown name exits 2.
    deleted = jout(watcher(run, "wallets", "delete", "second", "--yes", "--json"))
    assert deleted == {"deleted": "second", "chain": "bitcoin", "transactions": 0, "labels": 0}
    assert names() == []
    assert watcher(run, "wallets", "delete", "second", "--yes", check=False).returncode == 2
    with sqlite3.connect(home.data_dir / "wallet.sqlite") as db:
        keys = [row[0] for row in db.execute("SELECT key FROM setting")]
    assert not [k for k in keys if k.startswith("wallet.second.")]


def setup_second_descriptor() -> str:
    from test_watcher_send import SigningAccount

    return SigningAccount("wpkh").descriptor


def test_inspect_shows_own_inputs_outputs_and_labels(run, tmp_path, regtest_node):
    account = setup_wallet(run, regtest_node, "wpkh", [250_000])
    [coin] = jout(watcher(run, "utxos", "--json"))
    outpoint = f"{coin['txid']}:{coin['vout']}"
    labels = [
        {"type": "tx", "ref": coin["txid"], "label": "salary"},
        {"type": "addr", "ref": account.address(0), "label": "payroll address"},
        {"type": "addr", "ref": FAUCET_ADDRESS, "label": "the faucet"},
        # From an imported file, so from anyone: an escape sequence that clears the screen and a bidi override.
        {"type": "output", "ref": outpoint, "label": "evil\x1b[2J\u202egnp.exe"},
    ]
    watcher(run, "labels", "import", "-", input="".join(json.dumps(x) + "\n" for x in labels))
    psbt_path = tmp_path / "spend.psbt"
    sent = send_json(run, "100000sat", psbt_path, fee_rate="3")
    report = jout(watcher(run, "inspect", str(psbt_path), "--json"))
    assert report["txid"] == sent["txid"] and report["fee"] == sent["fee"] and report["wallet"] == "w"
    [inp] = report["inputs"]
    assert (inp["outpoint"], inp["own"], inp["keychain"], inp["derivation_index"]) == (outpoint, True, "receive", 0)
    assert sorted(inp["labels"]) == ["evil\x1b[2J\u202egnp.exe", "payroll address", "salary"]  # JSON escapes it
    by_address = {o["address"]: o for o in report["outputs"]}
    payment = by_address[FAUCET_ADDRESS]
    assert (payment["own"], payment["amount"], payment["labels"]) == (False, 100_000, ["the faucet"])
    [change] = [o for o in report["outputs"] if o["own"]]
    assert change["keychain"] == "change" and change["amount"] == 250_000 - 100_000 - sent["fee"]
    assert report["net"] == -(100_000 + sent["fee"])
    # The same decoding as the signer's inspect.
    signer = json.loads(
        run("airlock-signer", "inspect", str(psbt_path), "--network", "regtest", "--json", check=True).stdout
    )
    assert signer["txid"] == report["txid"] and signer["fee"] == report["fee"]
    assert [o["address"] for o in signer["outputs"]] == [o["address"] for o in report["outputs"]]
    text = watcher(run, "inspect", str(psbt_path)).stdout.decode()
    assert "own (receive 0)" in text and '"salary"' in text and "not this wallet's" in text
    # On a terminal the hostile label is shown with its control and format characters replaced (the control: the
    # plain labels beside it are shown verbatim).
    assert '"evil\\u001b[2J\\u202egnp.exe"' in text and "\x1b" not in text and "\u202e" not in text
    history = watcher(run, "history").stdout.decode()
    assert "salary" in history and "\x1b" not in history
    # A PSBT this wallet has no part in: nothing own. Bad input exits 2.
    other = tmp_path / "garbage.psbt"
    other.write_bytes(b"psbt\xff" + b"\x00" * 10)
    assert watcher(run, "inspect", str(other), check=False).returncode == 2
