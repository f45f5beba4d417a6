"""airlock-watcher send / combine / finalize / broadcast / bump against the regtest node.

Accounts are made with embit from a fresh mnemonic (so embit can sign); the unsigned PSBTs the watcher writes are
checked independently with embit and BDK (`bdk.Psbt`), signed with embit, optionally trimmed to signatures only (as
`airlock-signer sign` returns them), and broadcast from the file or from a QR PNG made with the `qrcode` package.
"""

from __future__ import annotations

import base64
import json
import os

import bdkpython as bdk
import pytest
import qrcode
from embit import bip32, bip39
from embit.descriptor import Descriptor
from embit.descriptor.checksum import add_checksum
from embit.networks import NETWORKS
from embit.psbt import PSBT

from regtest.testing import FAUCET_ADDRESS

NET = NETWORKS["regtest"]
PATHS = {"wpkh": "84h/1h/0h", "tr": "86h/1h/0h"}


class SigningAccount:
    """A single-key account from a fresh mnemonic: the descriptor to import, and the root key to sign with."""

    def __init__(self, kind: str):
        mnemonic = bip39.mnemonic_from_bytes(os.urandom(16))
        self.root = bip32.HDKey.from_seed(bip39.mnemonic_to_seed(mnemonic), version=NET["xprv"])
        path = PATHS[kind]
        xpub = self.root.derive("m/" + path).to_public().to_base58(version=NET["xpub"])
        key = f"[{self.root.my_fingerprint.hex()}/{path}]{xpub}"
        self.descriptor = add_checksum(f"{kind}({key}/<0;1>/*)")
        self.receive = Descriptor.from_string(f"{kind}({key}/0/*)")
        self.change = Descriptor.from_string(f"{kind}({key}/1/*)")

    def address(self, index: int) -> str:
        return self.receive.derive(index).address(NET)


def watcher(run, *args, input=None, check=True):
    return run("airlock-watcher", *args, input=input, check=check)


def jout(proc):
    return json.loads(proc.stdout)


def send_json(run, amount: str, out, *extra: str, fee_rate: str = "2", to: str = FAUCET_ADDRESS) -> dict:
    """`airlock-watcher send` of `amount` to `to`, the unsigned PSBT written to `out`; its --json report."""
    return jout(
        watcher(
            run, "send", "--to", to, "--amount", amount, "--fee-rate", fee_rate, "--out", str(out), *extra, "--json"
        )
    )


def sign_and_broadcast(run, unsigned, account, signed) -> str:
    """Signs the PSBT file `unsigned` with `account` (embit) into `signed` and broadcasts it; the txid printed."""
    signed.write_bytes(sign(unsigned.read_bytes(), account))
    return watcher(run, "broadcast", str(signed)).stdout.decode().strip()


def setup_wallet(run, node, kind: str, amounts: list[int]) -> SigningAccount:
    """Imports a fresh account, pays `amounts` to its first receive addresses, mines, syncs."""
    account = SigningAccount(kind)
    watcher(run, "import", "-", "--name", "w", "--network", "regtest", input=account.descriptor)
    watcher(run, "node", "set", f"electrum://127.0.0.1:{node.electrum_port}")
    for i, sats in enumerate(amounts):
        node.send_to(account.address(i), sats)
    node.mine(1)
    watcher(run, "sync")
    assert jout(watcher(run, "balance", "--json"))["confirmed"] == sum(amounts)
    return account


def wallet_outpoints(run) -> set[str]:
    return {f"{u['txid']}:{u['vout']}" for u in jout(watcher(run, "utxos", "--json"))}


def sign(psbt_bytes: bytes, account: SigningAccount, trim: bool = False) -> bytes:
    psbt = PSBT.parse(psbt_bytes)
    assert psbt.sign_with(account.root) >= len(psbt.inputs)
    if trim:
        # What a signer returns when it trims: the transaction and the signatures, nothing else.
        for inp in psbt.inputs:
            inp.non_witness_utxo = None
            inp.witness_utxo = None
            inp.bip32_derivations = {}
            inp.taproot_bip32_derivations = {}
            inp.taproot_internal_key = None
        for out in psbt.outputs:
            out.bip32_derivations = {}
            out.taproot_bip32_derivations = {}
            out.taproot_internal_key = None
    return psbt.serialize()


@pytest.mark.parametrize("kind", ["wpkh", "tr"])
def test_send_sign_broadcast(run, home, regtest_node, tmp_path, kind):
    node = regtest_node
    account = setup_wallet(run, node, kind, [200_000, 300_000])
    before = wallet_outpoints(run)
    unsigned = tmp_path / "unsigned.psbt"
    sent = send_json(run, "250000sat", unsigned)
    raw = unsigned.read_bytes()
    assert raw.startswith(b"psbt\xff")
    assert base64.b64decode(sent["psbt"]) == raw

    # embit: outputs, fee, only wallet coins, derivations for every input and the change.
    psbt = PSBT.parse(raw)
    outs = [(o.script_pubkey.address(NET), o.value) for o in psbt.tx.vout]
    assert (FAUCET_ADDRESS, 250_000) in outs
    spent = {f"{i.txid.hex()}:{i.vout}" for i in psbt.tx.vin}
    assert spent <= before and len(spent) == 2
    assert sum(i.utxo.value for i in psbt.inputs) - sum(v for _, v in outs) == sent["fee"]
    assert psbt.tx.locktime > 0 and all(i.sequence == 0xFFFFFFFD for i in psbt.tx.vin)
    for inp in psbt.inputs:
        assert inp.non_witness_utxo is not None and inp.witness_utxo is not None
        derivations = inp.taproot_bip32_derivations if kind == "tr" else inp.bip32_derivations
        assert [d for d in derivations.values()], "input without derivation"
    change = [(o, v) for o, v in zip(psbt.outputs, psbt.tx.vout) if v.script_pubkey.address(NET) != FAUCET_ADDRESS]
    assert len(change) == 1
    change_out, change_vout = change[0]
    derivation = list((change_out.taproot_bip32_derivations if kind == "tr" else change_out.bip32_derivations).values())
    assert derivation
    der = derivation[0][1] if kind == "tr" else derivation[0]
    assert der.derivation[-2] == 1  # the change branch
    assert account.change.derive(der.derivation[-1]).script_pubkey() == change_vout.script_pubkey
    # 2 sat/vB on the estimated signed size
    # two inputs, a P2WPKH payment and a change output: ~200 vB (tr) or ~209 vB (wpkh) once signed
    assert 2 * (180 if kind == "tr" else 200) <= sent["fee"] <= 2 * (220 if kind == "tr" else 230)

    # BDK parses it with the same fee and outputs.
    bpsbt = bdk.Psbt(base64.b64encode(raw).decode())
    assert bpsbt.fee() == sent["fee"]
    assert json.loads(bpsbt.json_serialize())["unsigned_tx"]["output"][0]["value"] in (250_000, change_vout.value)

    # Sign with embit and broadcast: wpkh from the full signed file, tr from a QR PNG of the trimmed PSBT.
    if kind == "wpkh":
        signed = tmp_path / "signed.psbt"
        signed.write_bytes(sign(raw, account))
        proc = watcher(run, "broadcast", str(signed))
    else:
        trimmed = sign(raw, account, trim=True)
        assert len(trimmed) < len(raw) / 2
        png = tmp_path / "signed.png"
        qrcode.make(base64.b64encode(trimmed).decode()).save(png)
        proc = watcher(run, "broadcast", str(png))
    txid = proc.stdout.decode().strip()
    assert txid == sent["txid"]
    assert FAUCET_ADDRESS.encode() in proc.stderr and b"fee:" in proc.stderr  # the summary before sending
    assert txid in node.cli("getrawmempool")
    node.mine(1)
    watcher(run, "sync")
    balance = jout(watcher(run, "balance", "--json"))
    assert balance["confirmed"] == 500_000 - 250_000 - sent["fee"]
    assert balance["unconfirmed"] == 0


def test_max_leaves_no_change(run, regtest_node, tmp_path):
    setup_wallet(run, regtest_node, "wpkh", [120_000, 80_000])
    sent = jout(watcher(run, "send", "--to", FAUCET_ADDRESS, "--max", "--fee-rate", "3", "--json"))
    assert len(sent["outputs"]) == 1 and not sent["outputs"][0]["change"]
    assert sent["outputs"][0]["amount"] + sent["fee"] == 200_000
    assert sent["change_index"] is None


def test_bnb_finds_changeless(run, regtest_node, tmp_path):
    # Coins of 100,000, 50,000 and 30,000: paying 129,700 at 1 sat/vB fits 100,000 + 30,000 (two wpkh inputs,
    # one P2WPKH output: 11 + 2 * 68 + 31 = 178 vB) with an excess of 122 sat, below the cost of change.
    setup_wallet(run, regtest_node, "wpkh", [100_000, 50_000, 30_000])
    sent = jout(watcher(run, "send", "--to", FAUCET_ADDRESS, "--amount", "129700sat", "--fee-rate", "1", "--json"))
    assert sent["algorithm"] == "bnb"
    assert len(sent["outputs"]) == 1
    assert sorted(i["value"] for i in sent["inputs"]) == [30_000, 100_000]
    assert sent["fee"] == 130_000 - 129_700


def test_combine_finalize_and_bump(run, regtest_node, tmp_path):
    node = regtest_node
    account = setup_wallet(run, node, "wpkh", [400_000, 60_000])
    sent = jout(watcher(run, "send", "--to", FAUCET_ADDRESS, "--amount", "100000sat", "--fee-rate", "2", "--json"))
    raw = base64.b64decode(sent["psbt"])
    # combine: a trimmed signed PSBT plus the watcher's kept copy finalize to a complete transaction.
    trimmed = tmp_path / "trimmed.psbt"
    trimmed.write_text(base64.b64encode(sign(raw, account, trim=True)).decode())
    combined = jout(watcher(run, "combine", str(trimmed), "--out", str(tmp_path / "combined.psbt"), "--json"))
    assert combined["used_kept_psbt"] and all(n >= 1 for n in combined["signatures"])
    final = jout(watcher(run, "finalize", str(tmp_path / "combined.psbt"), "--json"))
    assert final["txid"] == sent["txid"]
    accepted = node.cli("testmempoolaccept", [final["transaction"]])[0]
    assert accepted["allowed"], accepted
    watcher(run, "broadcast", str(trimmed))
    watcher(run, "sync")
    # bump: same recipient, higher fee, less change, replaces the original in the mempool.
    bump = jout(watcher(run, "bump", sent["txid"], "--fee-rate", "10", "--json"))
    assert bump["replaces"] == sent["txid"] and bump["fee"] > sent["fee"]
    bpsbt = PSBT.parse(base64.b64decode(bump["psbt"]))
    assert {(o.script_pubkey.address(NET), o.value) for o in bpsbt.tx.vout} >= {(FAUCET_ADDRESS, 100_000)}
    assert {f"{i.txid.hex()}:{i.vout}" for i in bpsbt.tx.vin} == {i["outpoint"] for i in sent["inputs"]}
    assert bdk.Psbt(bump["psbt"]).fee() == bump["fee"]
    signed = tmp_path / "bump.psbt"
    signed.write_bytes(sign(base64.b64decode(bump["psbt"]), account))
    # A second watcher on the same account syncs through Bitcoin Core RPC in wallet mode: it sees the original.
    core_dir, core_wallet = str(tmp_path / "core-watcher"), f"airlock-{os.urandom(6).hex()}"
    watcher(run, "import", "-", "--name", "w", "--network", "regtest", "--data-dir", core_dir, input=account.descriptor)
    watcher(
        run,
        "node",
        "set",
        f"bitcoind://127.0.0.1:{node.rpc_port}/wallet/{core_wallet}?cookie={node.cookie}",
        "--data-dir",
        core_dir,
    )
    watcher(run, "sync", "--data-dir", core_dir)
    assert sent["txid"] in {h["txid"] for h in jout(watcher(run, "history", "--json", "--data-dir", core_dir))}
    # The node replaces the original (Core 28's full RBF rules, docs/regtest.md): gone from the mempool at once.
    assert watcher(run, "broadcast", str(signed), check=True).stdout.decode().strip() == bump["txid"]
    mempool = node.cli("getrawmempool")
    assert bump["txid"] in mempool and sent["txid"] not in mempool
    watcher(run, "sync")
    history = {h["txid"] for h in jout(watcher(run, "history", "--json"))}
    assert bump["txid"] in history and sent["txid"] not in history
    balance = jout(watcher(run, "balance", "--json"))
    assert balance["total"] == 460_000 - 100_000 - bump["fee"]  # the original's change no longer counts
    watcher(run, "sync", "--data-dir", core_dir)
    core_history = {h["txid"] for h in jout(watcher(run, "history", "--json", "--data-dir", core_dir))}
    assert bump["txid"] in core_history and sent["txid"] not in core_history
    assert jout(watcher(run, "balance", "--json", "--data-dir", core_dir))["total"] == balance["total"]
    node.mine(1)
    watcher(run, "sync")
    balance = jout(watcher(run, "balance", "--json"))
    assert (balance["confirmed"], balance["unconfirmed"]) == (460_000 - 100_000 - bump["fee"], 0)
    confirmed = {h["txid"]: h for h in jout(watcher(run, "history", "--json"))}
    assert sent["txid"] not in confirmed and confirmed[bump["txid"]]["height"] == node.height()
    assert confirmed[bump["txid"]]["fee"] == bump["fee"]
    # The same through Bitcoin Core RPC in wallet mode (second data directory): the original no longer counts there
    # either, and it is not in the history.
    core_sync = jout(watcher(run, "sync", "--json", "--data-dir", core_dir))
    assert core_sync["mode"] == f"wallet {core_wallet}"
    assert jout(watcher(run, "balance", "--json", "--data-dir", core_dir))["confirmed"] == balance["confirmed"]
    core_history = {h["txid"] for h in jout(watcher(run, "history", "--json", "--data-dir", core_dir))}
    assert bump["txid"] in core_history and sent["txid"] not in core_history


def test_bad_input(run, regtest_node, tmp_path):
    account = setup_wallet(run, regtest_node, "wpkh", [50_000])
    proc = watcher(run, "send", "--to", FAUCET_ADDRESS, "--amount", "0.01btc", "--fee-rate", "1", check=False)
    assert proc.returncode == 2 and b"insufficient funds" in proc.stderr
    garbage = tmp_path / "garbage.psbt"
    garbage.write_bytes(b"not a psbt at all")
    proc = watcher(run, "broadcast", str(garbage), check=False)
    assert proc.returncode == 2 and b"error:" in proc.stderr
    proc = watcher(run, "broadcast", str(tmp_path / "missing.psbt"), check=False)
    assert proc.returncode == 6
    # An unsigned PSBT cannot be finalized: exit 2 saying to sign it first (issue 27).
    sent = jout(watcher(run, "send", "--to", FAUCET_ADDRESS, "--amount", "10000sat", "--fee-rate", "1", "--json"))
    unsigned = tmp_path / "unsigned.psbt"
    unsigned.write_text(sent["psbt"])
    proc = watcher(run, "broadcast", str(unsigned), check=False)
    assert proc.returncode == 2 and b"not signed yet: sign it with airlock-signer first" in proc.stderr
    # A transaction the node refuses (a double spend at the same fee rate, no replacement): exit 5 and the reason.
    outpoint = sent["inputs"][0]["outpoint"]
    other = jout(
        watcher(
            run, "send", "--to", FAUCET_ADDRESS, "--amount", "20000sat", "--fee-rate", "1", "--utxo", outpoint, "--json"
        )
    )
    first = tmp_path / "first.psbt"
    first.write_bytes(sign(base64.b64decode(sent["psbt"]), account))
    watcher(run, "broadcast", str(first))
    second = tmp_path / "second.psbt"
    second.write_bytes(sign(base64.b64decode(other["psbt"]), account))
    proc = watcher(run, "broadcast", str(second), check=False)
    assert proc.returncode == 5, proc.stderr
    assert b"rejected" in proc.stderr and b"fee" in proc.stderr.lower()
