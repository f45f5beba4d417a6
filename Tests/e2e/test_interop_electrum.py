"""Interop of the watcher and the signer with wallets written elsewhere: Electrum 4.3.4 (Debian) and BDK (bdkpython).

- The watcher's PSBT (its wallet imported from `airlock-signer export` of a known mnemonic) is signed by an Electrum
  *offline* wallet restored from the same mnemonic, and by a BDK wallet made from the same mnemonic; the watcher
  finalizes and broadcasts, the node mines, the balance is exact.
- An Electrum *watch-only* wallet of the signer's exported account key (the `bip84` `_pub` of `export --format json`)
  builds an unsigned PSBT; `airlock-signer sign` signs it from the file and from QR PNG frames; Electrum broadcasts.

How Electrum is driven headless (Electrum 4.3.4's CLI cannot do two of these steps itself):
- Its `restore` command reads an Electrum seed, a master key or keys, never a BIP39 phrase, and it has no option for
  a derivation path or a key origin. The GUI's "BIP39 seed" option does `keystore.from_bip43_rootseed(bip39_to_seed(
  words, passphrase), "m/84'/1'/0'", xtype="p2wpkh")`; MAKE_WALLET below does exactly that with Electrum's own
  library (its interpreter, /usr/bin/python3) and writes an ordinary wallet file, which the `electrum` CLI then uses.
- A watch-only wallet restored from the bare vpub (`electrum restore vpub…`) records no key origin: its PSBTs name
  the account key's own fingerprint and a `m/0/i` path. airlock-signer matches such origins to its seed's standard
  accounts by re-deriving each key (Signer.AccountOriginResolver), so it signs those too (the last test). Electrum
  keeps a key origin for keystores that know it (`add_key_origin`, as its hardware-wallet plugins do); MAKE_WALLET
  gives the watch-only keystore the origin from the signer's export (`xfp` and `deriv`) when asked, so its PSBTs
  carry `[fingerprint/84'/1'/0'/…]` derivations.
"""

from __future__ import annotations

import ast
import base64
import http.client
import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import bdkpython as bdk
import pytest
from embit.psbt import PSBT
from roundtrip_helpers import Watcher, btc, fee_from_chain, outside_address, outside_holds, sats
from signer_psbt import Vault, address, new_mnemonic, read_qr_pngs, ur_decode, ur_frames, write_qr_pngs

from regtest.testing import ElectrumDaemon

ELECTRUM_PYTHON = "/usr/bin/python3"  # the interpreter the Debian `electrum` script runs on (its library lives there)
AMOUNTS = [200_000, 100_000]
SEND = 150_000

# Makes an Electrum wallet file with Electrum's library: a BIP39 keystore (mnemonic + derivation), or a watch-only
# keystore of an account key with its key origin. Prints the first receive address.
MAKE_WALLET = r"""
import json, sys
from electrum import constants, keystore, util
from electrum.simple_config import SimpleConfig
from electrum.storage import WalletStorage
from electrum.wallet import Wallet
from electrum.wallet_db import WalletDB

constants.set_regtest()
spec = json.loads(sys.argv[1])
loop, stop_loop, loop_thread = util.create_and_start_event_loop()
try:
    config = SimpleConfig({"regtest": True, "electrum_path": spec["dir"]})
    config.set_key("use_exchange_rate", False, save=True)  # no exchange-rate lookups when the daemon runs
    if "mnemonic" in spec:
        seed = keystore.bip39_to_seed(spec["mnemonic"], "")
        k = keystore.from_bip43_rootseed(seed, spec["derivation"], xtype="p2wpkh")
    else:
        k = keystore.from_master_key(spec["xpub"])
        if spec.get("fingerprint"):
            k.add_key_origin(derivation_prefix=spec["derivation"], root_fingerprint=spec["fingerprint"])
    db = WalletDB("", manual_upgrades=False)
    db.put("keystore", k.dump())
    db.put("wallet_type", "standard")
    wallet = Wallet(db, WalletStorage(spec["path"]), config=config)
    wallet.update_password(old_pw=None, new_pw=None, encrypt_storage=False)
    wallet.synchronize()
    wallet.save_db()
    print(json.dumps({"first": wallet.get_receiving_addresses()[0], "watching_only": wallet.is_watching_only()}))
finally:
    loop.call_soon_threadsafe(stop_loop.set_result, 1)
    loop_thread.join(timeout=10)
"""


def make_electrum_wallet(data_dir: Path, **spec) -> dict:
    """An Electrum wallet at DATA_DIR/regtest/wallets/default_wallet (what `electrum -D DATA_DIR` opens)."""
    path = data_dir / "regtest" / "wallets" / "default_wallet"
    path.parent.mkdir(parents=True, exist_ok=True)
    spec.update(dir=str(data_dir), path=str(path))
    p = subprocess.run(
        [ELECTRUM_PYTHON, "-c", MAKE_WALLET, json.dumps(spec)],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert p.returncode == 0, f"Electrum wallet creation failed: {p.stdout}\n{p.stderr}"
    return json.loads(p.stdout.strip().splitlines()[-1])


class ElectrumRPC(ElectrumDaemon):
    """The daemon of test_regtest_electrum_wallet, plus its own JSON-RPC interface (what the `electrum` CLI talks to):
    HTTP with basic auth over the Unix socket named in DIR/regtest/daemon, credentials from DIR/regtest/config. One
    call costs a request instead of starting Electrum's interpreter (seconds on a loaded machine)."""

    def call(self, method: str, **params):
        regtest = Path(self.dir) / "regtest"
        socktype, address, _ = ast.literal_eval((regtest / "daemon").read_text())
        assert socktype == "unix", socktype
        config = json.loads((regtest / "config").read_text())
        auth = base64.b64encode(f"{config['rpcuser']}:{config['rpcpassword']}".encode()).decode()
        conn = http.client.HTTPConnection("127.0.0.1", timeout=120)
        conn.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.sock.settimeout(120)
        conn.sock.connect(address)
        try:
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
            conn.request("POST", "/", body, {"Authorization": f"Basic {auth}", "Content-Type": "application/json"})
            resp = conn.getresponse()
            assert resp.status == 200, (resp.status, resp.read())
            answer = json.loads(resp.read())
        finally:
            conn.close()
        assert "error" not in answer, f"electrum {method}: {answer['error']}"
        return answer["result"]

    def stop(self) -> None:
        """`stop` over RPC, then (as the parent class does) SIGKILL for the daemon we started if it is still up."""
        if (Path(self.dir) / "regtest" / "daemon").exists():
            try:
                self.call("stop")
            except (OSError, AssertionError, SyntaxError, ValueError):
                pass
        if self.pid is None:
            return
        for _ in range(50):
            try:
                os.kill(self.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)
        os.kill(self.pid, signal.SIGKILL)

    def wait_synced(self, height: int, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.call("getinfo").get("blockchain_height") == height and self.call("is_synchronized"):
                return
            time.sleep(0.2)
        raise AssertionError(f"electrum did not sync to height {height}: {self.call('getinfo')}")


@pytest.fixture
def electrum(tmp_path):
    d = ElectrumRPC(tmp_path / "electrum")
    try:
        yield d
    finally:
        d.stop()


def watched_account(run, node, vault: Vault, kind: str) -> tuple[Watcher, str]:
    """The watcher imports the vault's exported `kind` account; the faucet pays receive addresses 0 and 1; mined."""
    desc = vault.export(kind)
    watcher = Watcher(run, node)
    watcher("import", "-", "--name", "w", "--network", "regtest", input=desc)
    watcher("node", "set", f"electrum://127.0.0.1:{node.electrum_port}")
    for i, amount in enumerate(AMOUNTS):
        node.send_to(address(desc, i), amount)
    node.mine(1)
    watcher("sync")
    assert watcher.balance()["confirmed"] == sum(AMOUNTS)
    return watcher, desc


def check_mined(watcher: Watcher, node, txid: str, sent: int, outside: str) -> int:
    """Mines; the watcher's balance is what was paid less `sent` and the fee (computed from the chain); the outside
    address holds `sent` in this transaction. Returns the fee."""
    assert txid in node.cli("getrawmempool")
    block = node.mine(1)[0]
    assert txid in node.cli("getblock", block, 1)["tx"]
    fee = fee_from_chain(node, txid)
    watcher("sync")
    balance = watcher.balance()
    assert (balance["confirmed"], balance["unconfirmed"]) == (sum(AMOUNTS) - sent - fee, 0)
    assert outside_holds(node, outside) == [(txid, sent)]
    return fee


def test_electrum_offline_wallet_signs_the_watchers_psbt(run, home, bin_dir, regtest_node, tmp_path):
    node = regtest_node
    mnemonic = new_mnemonic()
    vault = Vault(bin_dir, home.env, home.root, "known", mnemonic=mnemonic)
    watcher, desc = watched_account(run, node, vault, "wpkh")

    # Electrum restores the same BIP39 words at m/84'/1'/0' and never goes online.
    el_dir = tmp_path / "electrum-offline"
    made = make_electrum_wallet(el_dir, mnemonic=mnemonic, derivation="m/84'/1'/0'")
    assert made == {"first": address(desc, 0), "watching_only": False}

    def electrum(*args: str) -> str:
        p = subprocess.run(
            ["electrum", "--regtest", "--offline", "-D", str(el_dir), *args],
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert p.returncode == 0, f"electrum {args[0]}: {p.stdout}\n{p.stderr}"
        return p.stdout.strip()

    assert address(desc, 1) in json.loads(electrum("listaddresses"))

    outside = outside_address()
    unsigned = tmp_path / "unsigned.psbt"
    sent = watcher.json("send", "--to", outside, "--amount", f"{SEND}sat", "--fee-rate", "2", "--out", unsigned)
    # Electrum signs every input and, the transaction being complete, answers with the network transaction.
    signed_hex = electrum("signtransaction", base64.b64encode(unsigned.read_bytes()).decode())
    assert not signed_hex.startswith("cHNidP"), "Electrum left the PSBT incomplete"
    tx_file = tmp_path / "electrum-signed.txn"
    tx_file.write_text(signed_hex + "\n")
    # The watcher sends the raw transaction Electrum wrote; it is the one the watcher built.
    out = watcher("broadcast", tx_file)
    txid = out.stdout.decode().strip()
    assert txid == sent["txid"]
    assert check_mined(watcher, node, txid, SEND, outside) == sent["fee"]


def bdk_wallet(mnemonic: str, kind: str):
    """BDK's BIP84/BIP86 template wallet of the mnemonic (private keys), never synced: it only signs."""
    secret = bdk.DescriptorSecretKey(bdk.NetworkKind.TEST, bdk.Mnemonic.from_string(mnemonic), None)
    template = bdk.Descriptor.new_bip84 if kind == "wpkh" else bdk.Descriptor.new_bip86
    ext = template(secret, bdk.KeychainKind.EXTERNAL, bdk.NetworkKind.TEST)
    chg = template(secret, bdk.KeychainKind.INTERNAL, bdk.NetworkKind.TEST)
    return bdk.Wallet(ext, chg, bdk.Network.REGTEST, bdk.Persister.new_in_memory()), ext


@pytest.mark.parametrize("kind", ["wpkh", "tr"])
def test_bdk_signs_the_watchers_psbt(run, home, bin_dir, regtest_node, tmp_path, kind):
    node = regtest_node
    mnemonic = new_mnemonic()
    vault = Vault(bin_dir, home.env, home.root, "known", mnemonic=mnemonic)
    watcher, desc = watched_account(run, node, vault, kind)
    wallet, ext = bdk_wallet(mnemonic, kind)
    # BDK's public receive descriptor is the signer's export (BDK writes ' for hardened steps).
    assert str(ext).split("#")[0].replace("'", "h") == desc.split("#")[0].replace("<0;1>", "0")

    outside = outside_address()
    sent = watcher.json("send", "--to", outside, "--amount", f"{SEND}sat", "--fee-rate", "2")
    psbt = bdk.Psbt(sent["psbt"])
    options = bdk.SignOptions(
        trust_witness_utxo=False,
        assume_height=None,
        allow_all_sighashes=False,
        try_finalize=False,
        sign_with_tap_internal_key=True,
        allow_grinding=True,
    )
    assert wallet.sign(psbt, options) is False  # signed, left for the watcher to finalize
    signed = PSBT.parse(base64.b64decode(psbt.serialize()))
    for inp in signed.inputs:
        if kind == "tr":
            # embit 0.8 keeps PSBT_IN_TAP_KEY_SIG (0x13) as an unknown field: a 64-byte SIGHASH_DEFAULT signature.
            assert len(inp.unknown.get(b"\x13", b"")) == 64, "no taproot key-path signature"
        else:
            assert len(inp.partial_sigs) == 1
    signed_file = tmp_path / "bdk-signed.psbt"
    signed_file.write_text(psbt.serialize())

    final = watcher.json("finalize", signed_file, "--out", tmp_path / "final.psbt")
    assert final["txid"] == sent["txid"]
    assert node.cli("testmempoolaccept", [final["transaction"]])[0]["allowed"]
    txid = watcher("broadcast", signed_file).stdout.decode().strip()
    assert txid == sent["txid"]
    assert check_mined(watcher, node, txid, SEND, outside) == sent["fee"]


def test_electrum_watch_only_psbt_signed_by_airlock(run, home, bin_dir, regtest_node, tmp_path, electrum):
    node = regtest_node
    vault = Vault(bin_dir, home.env, home.root, "cold", mnemonic=new_mnemonic())
    watcher, desc = watched_account(run, node, vault, "wpkh")
    export = json.loads(vault.run("export", "--format", "json", check=True).stdout)
    bip84 = export["bip84"]
    assert bip84["_pub"].startswith("vpub") and bip84["deriv"] == "m/84'/1'/0'"

    made = make_electrum_wallet(
        Path(electrum.dir), xpub=bip84["_pub"], derivation=bip84["deriv"], fingerprint=export["xfp"].lower()
    )
    assert made == {"first": address(desc, 0), "watching_only": True}
    electrum.start(node.electrum_port)
    electrum.call("load_wallet")
    electrum.wait_synced(node.height())
    assert sats(electrum.call("getbalance")["confirmed"]) == sum(AMOUNTS)

    outside = outside_address()
    unsigned_b64 = electrum.call("payto", destination=outside, amount=btc(SEND), feerate=2, unsigned=True)
    unsigned = base64.b64decode(unsigned_b64)
    parsed = PSBT.parse(unsigned)
    fingerprint = bytes.fromhex(export["xfp"])
    for inp in parsed.inputs:
        assert [d.fingerprint for d in inp.bip32_derivations.values()] == [fingerprint]
        # Electrum 4.3.4 puts the whole previous transaction in segwit inputs too (besides the witness UTXO), so
        # the signer's fee-attack check passes without --allow-missing-prev-tx.
        assert inp.non_witness_utxo is not None and inp.witness_utxo is not None

    # The file: Electrum's PSBT as it wrote it (base64 text); full output, and the final transaction.
    src = tmp_path / "electrum-unsigned.psbt"
    src.write_text(unsigned_b64 + "\n")
    tx_hex = tmp_path / "tx.hex"
    verdict = json.loads(
        vault.sign(
            src,
            args=("--full", "--out", str(tmp_path / "signed.psbt"), "--finalize", "--tx-out", str(tx_hex), "--json"),
        ).stdout
    )
    assert verdict["verdict"] == "signed" and verdict["signed_inputs"] == list(range(len(parsed.inputs)))
    assert [(o["address"], o["amount"]) for o in verdict["outputs"] if o["external"]] == [(outside, SEND)]
    assert all(o["change"] for o in verdict["outputs"] if not o["external"]), "Electrum's change not verified"
    assert all(i.final_scriptwitness for i in PSBT.parse((tmp_path / "signed.psbt").read_bytes()).inputs)

    # The QR PNGs: Electrum's PSBT as shuffled UR frames (drawn here with segno); the signed PSBT comes back as PNGs,
    # read with zbarimg; the watcher finalizes them to the same transaction as the file gave (RFC6979 signatures).
    frames = ur_frames(unsigned)
    assert len(frames) > 1
    write_qr_pngs(frames, tmp_path / "frames")
    vault.sign(tmp_path / "frames", args=("--full", "--qr", str(tmp_path / "signed.png")))
    pngs = sorted(tmp_path.glob("signed*.png"))
    from_pngs = PSBT.parse(ur_decode(read_qr_pngs(pngs)))
    assert from_pngs.tx.txid().hex() == verdict["txid"] and all(len(i.partial_sigs) == 1 for i in from_pngs.inputs)
    final = watcher.json("finalize", *pngs)
    assert final["transaction"] == tx_hex.read_text().strip()

    # A PSBT without the previous transactions (as some coordinators write them) is refused unless the user allows
    # it; the signatures are the same either way (the segwit v0 sighash commits to the amount, not to the tx).
    for inp in parsed.inputs:
        inp.non_witness_utxo = None
    bare = tmp_path / "bare.psbt"
    bare.write_bytes(parsed.serialize())
    refused = vault.sign(bare, check=False)
    assert refused.returncode == 4, refused.stderr
    assert b"previous transaction" in refused.stderr or b"non_witness_utxo" in refused.stderr, refused.stderr
    vault.sign(bare, args=("--allow-missing-prev-tx", "--full", "--out", str(tmp_path / "bare-signed.psbt")))
    assert [i.partial_sigs for i in PSBT.parse((tmp_path / "bare-signed.psbt").read_bytes()).inputs] == [
        i.partial_sigs for i in from_pngs.inputs
    ]

    # Electrum broadcasts the transaction; mined; Electrum, the watcher and the node agree.
    txid = electrum.call("broadcast", tx=tx_hex.read_text().strip())
    assert txid == verdict["txid"]
    fee = check_mined(watcher, node, txid, SEND, outside)
    assert fee == verdict["fee"]
    electrum.wait_synced(node.height())
    assert sats(electrum.call("getbalance")["confirmed"]) == sum(AMOUNTS) - SEND - fee
    history = electrum.call("onchain_history")["transactions"]
    assert txid in [t["txid"] for t in history]


def test_electrum_bare_vpub_psbt_signed_by_airlock(run, home, bin_dir, regtest_node, tmp_path, electrum):
    """`electrum restore vpub…`: no key origin, so the PSBT names the account key's fingerprint and m/0/i, m/1/i."""
    node = regtest_node
    vault = Vault(bin_dir, home.env, home.root, "cold", mnemonic=new_mnemonic())
    watcher, desc = watched_account(run, node, vault, "wpkh")
    export = json.loads(vault.run("export", "--format", "json", check=True).stdout)
    bip84 = export["bip84"]
    made = make_electrum_wallet(Path(electrum.dir), xpub=bip84["_pub"])
    assert made == {"first": address(desc, 0), "watching_only": True}
    electrum.start(node.electrum_port)
    electrum.call("load_wallet")
    electrum.wait_synced(node.height())

    outside = outside_address()
    unsigned_b64 = electrum.call("payto", destination=outside, amount=btc(SEND), feerate=2, unsigned=True)
    parsed = PSBT.parse(base64.b64decode(unsigned_b64))
    account_fp = bytes.fromhex(bip84["xfp"])  # the account key's own fingerprint, as Coldcard's export names it
    assert account_fp != bytes.fromhex(export["xfp"])
    for inp in parsed.inputs:
        for d in inp.bip32_derivations.values():
            assert d.fingerprint == account_fp and len(d.derivation) == 2
    src = tmp_path / "electrum-bare.psbt"
    src.write_text(unsigned_b64 + "\n")
    tx_hex = tmp_path / "tx.hex"
    proc = vault.sign(
        src, args=("--full", "--out", str(tmp_path / "signed.psbt"), "--finalize", "--tx-out", str(tx_hex), "--json")
    )
    verdict = json.loads(proc.stdout)
    assert verdict["verdict"] == "signed" and verdict["signed_inputs"] == list(range(len(parsed.inputs)))
    assert [(o["address"], o["amount"]) for o in verdict["outputs"] if o["external"]] == [(outside, SEND)]
    assert all(o["change"] for o in verdict["outputs"] if not o["external"]), "Electrum's change not verified"
    # The written PSBT keeps Electrum's own derivations (it is Electrum's PSBT, with signatures added).
    signed = PSBT.parse((tmp_path / "signed.psbt").read_bytes())
    assert all(d.fingerprint == account_fp for i in signed.inputs for d in i.bip32_derivations.values())

    # A claimed path whose key is not the one derived there is never matched: with every input's index moved, the
    # signer finds nothing of its own to sign (exit 4).
    for inp in parsed.inputs:
        for d in inp.bip32_derivations.values():
            d.derivation[-1] += 1000
    lying = tmp_path / "lying.psbt"
    lying.write_bytes(parsed.serialize())
    refused = vault.sign(lying, check=False)
    assert refused.returncode == 4 and b"no input of this PSBT belongs to this vault" in refused.stderr, refused.stderr

    txid = electrum.call("broadcast", tx=tx_hex.read_text().strip())
    assert txid == verdict["txid"]
    assert check_mined(watcher, node, txid, SEND, outside) == verdict["fee"]
