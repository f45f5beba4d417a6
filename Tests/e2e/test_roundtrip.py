"""The air-gapped round trip as a user runs it, against the regtest node: every hand-over is a QR-code PNG.

For a single-sig wpkh account (a vault made with `init`), a taproot account (a vault `restore`d from a known
mnemonic) and a 2-of-3 wsh sortedmulti wallet of three vaults:

1. the signer exports its account (`export … --qr`), the watcher imports that PNG;
2. the watcher hands out receive addresses as BIP21 QR PNGs (`receive --new --qr`); the faucet pays what zbarimg
   reads from them, the node mines, `sync` and `balance --json` show exactly what was paid;
3. `send` to an outside address writes the unsigned PSBT as QR PNG frames (UR, or BBQr for the multisig wallet);
4. `airlock-signer sign` reads the frames (shuffled, or their directory) and writes the signed PSBT as PNG frames; in
   the multisig wallet the second signer reads the first one's signed PNGs;
5. `broadcast` reads the signed PNGs, the node mines, and the watcher's balance is the paid amount less what was sent
   and the fee, the fee being computed here from the mined transaction and its previous outputs; the outside address
   holds the amount on the chain (the node's `scantxoutset`).

Each flow runs with the watcher on the node's Electrum server and on its Core RPC (a watch-only wallet on the node).
The QR codes the binaries write are read back here with zbarimg (not Airlock's reader) to check their framing.
"""

from __future__ import annotations

import base64
import json
import random
import uuid
import zlib
from pathlib import Path

import pytest
import segno
from embit.psbt import PSBT
from roundtrip_helpers import Watcher, fee_from_chain, outside_address, outside_holds
from signer_psbt import KDF, Vault, multisig_descriptor, new_mnemonic, read_qr_pngs

AMOUNTS = [300_000, 200_000, 150_000]  # three receive addresses; paying SEND takes at least two of them
# The multisig wallet gets five coins, all needed for SEND: a PSBT big enough for several BBQr frames.
MULTISIG_AMOUNTS = [100_000] * 5
SEND = 420_000
FEE_RATE = "2"


class InitVault(Vault):
    """A vault made with `airlock-signer init` (new words from the OS random source) instead of `restore`."""

    def __post_init__(self):
        self.path = self.root / f"{self.name}.airlock"
        self.password_file = self.root / f"{self.name}-pw.txt"
        self.password_file.write_text(f"pw-{self.name}\n")
        made = json.loads(
            self.run(
                "init",
                "--network",
                self.network,
                "--words",
                "12",
                "--skip-backup-check",
                "--json",
                "--show-secret",
                *KDF,
                check=True,
            ).stdout
        )
        self.mnemonic = made["mnemonic"]  # the words the user writes down (the backup check is skipped here)
        info = json.loads(self.run("info", "--json", check=True).stdout)
        assert info["network"] == "regtest" and info["master_fingerprint"] == self.fingerprint.hex()


def qr_text(paths: list[Path]) -> list[str]:
    return read_qr_pngs(paths)


def bbqr_decode(texts: list[str]) -> bytes:
    """Joins BBQr parts (any order) written in the Z encoding: base32 of raw deflate (coinkite BBQr.md)."""
    parts = sorted(texts, key=lambda t: int(t[6:8], 36))
    assert {t[:4] for t in parts} == {"B$ZP"} and len({t[4:6] for t in parts}) == 1
    body = "".join(t[8:] for t in parts)
    return zlib.decompress(base64.b32decode(body + "=" * (-len(body) % 8)), -10)


def frames(directory: Path, stem: str) -> list[Path]:
    """The PNGs `--qr DIR/STEM.png` wrote: STEM.png, or STEM-01ofNN.png …"""
    single = directory / f"{stem}.png"
    return [single] if single.exists() else sorted(directory.glob(f"{stem}-*of*.png"))


def shuffled(paths: list[Path], seed: int) -> list[Path]:
    out = list(paths)
    random.Random(seed).shuffle(out)
    if len(out) > 1 and out == paths:
        out.reverse()
    return out


def fund_from_receive_qrs(watcher: Watcher, node, work: Path, amounts: list[int]) -> list[str]:
    """The watcher hands out one address per amount as a BIP21 QR PNG; the faucet pays what the PNG says; mined."""
    addresses = []
    for i, amount in enumerate(amounts):
        png = work / f"receive-{i}.png"
        shown = watcher.json("receive", "--new", "--qr", png)
        [uri] = qr_text([png])
        assert uri.lower() == shown["uri"].lower(), (uri, shown)
        address = uri.split(":", 1)[1].split("?")[0]
        assert address.lower() == shown["address"].lower()
        addresses.append(shown["address"])
        node.send_to(shown["address"], amount)
    assert len(set(addresses)) == len(amounts), f"receive --new repeated an address: {addresses}"
    node.mine(1)
    watcher("sync")
    balance = watcher.balance()
    assert (balance["confirmed"], balance["unconfirmed"]) == (sum(amounts), 0)
    return addresses


def send_as_qr(watcher: Watcher, work: Path, to: str, qr_format: str | None) -> tuple[dict, list[Path]]:
    extra = ("--qr-format", qr_format) if qr_format else ()
    sent = watcher.json(
        "send", "--to", to, "--amount", f"{SEND}sat", "--fee-rate", FEE_RATE, "--qr", work / "psbt.png", *extra
    )
    pngs = frames(work, "psbt")
    assert len(pngs) > 1, "a PSBT of several inputs should need several QR frames"
    assert [p.name for p in pngs] == [f"psbt-{i:02d}of{len(pngs):02d}.png" for i in range(1, len(pngs) + 1)]
    check_framing(pngs, qr_format or "bbqr")
    return sent, pngs


def check_framing(pngs: list[Path], qr_format: str) -> None:
    texts = qr_text(pngs)
    assert len(texts) == len(pngs)
    if qr_format == "ur":
        assert all(t.upper().startswith(("UR:CRYPTO-PSBT/", "UR:PSBT/")) for t in texts), texts[0][:40]
    else:
        # BBQr: "B$", encoding, file type P (PSBT), total and index in base 36.
        assert all(t.startswith("B$") and t[3] == "P" for t in texts), texts[0][:10]
        assert sorted(int(t[6:8], 36) for t in texts) == list(range(len(texts)))


def broadcast_and_check(watcher: Watcher, node, signed: list[Path], sent: dict, outside: str, paid: int) -> None:
    proc = watcher("broadcast", *shuffled(signed, 3))
    txid = proc.stdout.decode().strip()
    assert txid == sent["txid"]
    assert txid in node.cli("getrawmempool")
    block = node.mine(1)[0]
    assert txid in node.cli("getblock", block, 1)["tx"]
    fee = fee_from_chain(node, txid)
    assert fee == sent["fee"]
    watcher("sync")
    balance = watcher.balance()
    assert (balance["confirmed"], balance["unconfirmed"]) == (paid - SEND - fee, 0)
    # The outside address holds exactly the payment, in this transaction's output.
    assert outside_holds(node, outside) == [(txid, SEND)]
    history = watcher.json("history")
    assert history and history[0]["txid"] == txid


def node_url(node, backend: str) -> str:
    """The regtest node's Electrum server, or its Core RPC with a watch-only wallet of this test's own."""
    if backend == "electrum":
        return f"electrum://127.0.0.1:{node.electrum_port}"
    return f"bitcoind://127.0.0.1:{node.rpc_port}/airlock-{uuid.uuid4().hex[:12]}?cookie={node.cookie}"


@pytest.mark.parametrize("backend", ["electrum", "bitcoind"])
@pytest.mark.parametrize("kind", ["wpkh", "tr"])
def test_single_sig_round_trip(run, home, bin_dir, regtest_node, tmp_path, kind, backend):
    node = regtest_node
    work = tmp_path / "qr"
    work.mkdir()
    if kind == "wpkh":
        # A new seed with `init`; its export is the descriptor as one QR code.
        vault = InitVault(bin_dir, home.env, home.root, "solo")
        vault.run("export", "--script", "wpkh", "--qr", str(work / "export.png"), check=True)
    else:
        # A known mnemonic restored; its export is a ur:crypto-account.
        vault = Vault(bin_dir, home.env, home.root, "solo", mnemonic=new_mnemonic())
        vault.run("export", "--script", "tr", "--format", "ur", "--qr", str(work / "export.png"), check=True)
    exported = frames(work, "export")
    assert len(exported) == 1
    [text] = qr_text(exported)
    assert text.startswith("wpkh([") if kind == "wpkh" else text.upper().startswith("UR:CRYPTO-ACCOUNT/")
    descriptor = vault.export(kind)

    watcher = Watcher(run, node)
    imported = watcher.json("import", exported[0], "--name", "solo", "--network", "regtest")
    stem = descriptor.split("#")[0]
    assert imported["receive_descriptor"].split("#")[0] == stem.replace("<0;1>", "0")
    assert imported["change_descriptor"].split("#")[0] == stem.replace("<0;1>", "1")
    watcher("node", "set", node_url(node, backend))
    addresses = fund_from_receive_qrs(watcher, node, work, AMOUNTS)
    # The signer derives the same first address (what a user checks on the offline screen).
    first = json.loads(vault.run("address", "--script", kind, "--index", "0", "--json", check=True).stdout)
    assert first["address"] == addresses[0]

    outside = outside_address()
    # wpkh: the default framing (BBQr with zlib, docs/watcher.md); tr: Sparrow-style UR asked for by --qr-format.
    qr_format = None if kind == "wpkh" else "ur"
    sent, unsigned = send_as_qr(watcher, work, outside, qr_format)

    # wpkh: the frames as files in shuffled order; tr: the directory holding them.
    sources = shuffled(unsigned, 1) if kind == "wpkh" else [work]
    if kind == "tr":
        for p in list(work.glob("*.png")):
            if not p.name.startswith("psbt-"):
                p.rename(tmp_path / p.name)  # the directory holds only the PSBT's frames
    verdict = json.loads(vault.sign(*sources, args=("--qr", str(tmp_path / "signed.png"), "--json")).stdout)
    assert verdict["verdict"] == "signed" and verdict["signed_inputs"] == list(range(len(sent["inputs"])))
    assert verdict["fee"] == sent["fee"] and verdict["txid"] == sent["txid"]
    assert [(o["address"], o["amount"]) for o in verdict["outputs"] if o["external"]] == [(outside, SEND)]
    signed = frames(tmp_path, "signed")
    check_framing(signed, qr_format or "bbqr")  # the signer answers in the framing the request came in
    broadcast_and_check(watcher, node, signed, sent, outside, sum(AMOUNTS))


@pytest.mark.parametrize("backend", ["electrum", "bitcoind"])
def test_multisig_2_of_3_round_trip(run, home, bin_dir, regtest_node, tmp_path, backend):
    node = regtest_node
    work = tmp_path / "qr"
    work.mkdir()
    vaults = [Vault(bin_dir, home.env, home.root, name) for name in ("alice", "bob", "carol")]
    # Each cosigner shows its BIP48 key as a QR code; the coordinator (this test) reads them with zbar.
    keys = []
    for v in vaults:
        png = work / f"key-{v.name}.png"
        v.run("export", "--script", "wsh-multi", "--qr", str(png), check=True)
        [key] = qr_text([png])
        assert key == v.export("wsh-multi") and key.startswith(f"[{v.fingerprint.hex()}/48h/1h/0h/2h]tpub")
        keys.append(key)
    descriptor = multisig_descriptor(keys)
    wallet_png = work / "wallet.png"
    segno.make(descriptor, error="l", micro=False).save(str(wallet_png), scale=4, border=4)
    for v in vaults:
        reg = json.loads(
            v.run("multisig", "register", str(wallet_png), "--name", "team", "--json", "--yes", check=True).stdout
        )
        assert reg["threshold"] == 2

    watcher = Watcher(run, node)
    watcher("import", wallet_png, "--name", "team", "--network", "regtest")
    watcher("node", "set", node_url(node, backend))
    fund_from_receive_qrs(watcher, node, work, MULTISIG_AMOUNTS)

    outside = outside_address()
    sent, unsigned = send_as_qr(watcher, work, outside, "bbqr")
    # Alice signs the watcher's frames and passes everything on (--full), as PNGs, to Bob.
    alice = json.loads(
        vaults[0].sign(*shuffled(unsigned, 5), args=("--full", "--qr", str(tmp_path / "alice.png"), "--json")).stdout
    )
    assert alice["verdict"] == "signed" and alice["signed_inputs"] == list(range(len(sent["inputs"])))
    assert [o["change"] for o in alice["outputs"] if not o["external"]] == [True], "multisig change not verified"
    alice_pngs = frames(tmp_path, "alice")
    check_framing(alice_pngs, "bbqr")
    assert all(len(i.partial_sigs) == 1 for i in PSBT.parse(bbqr_decode(qr_text(alice_pngs))).inputs)
    # Bob reads Alice's signed PNGs and writes his (trimmed) answer, which holds both signatures, in the framing
    # the request came in.
    bob = json.loads(
        vaults[1].sign(*shuffled(alice_pngs, 6), args=("--qr", str(tmp_path / "bob.png"), "--json")).stdout
    )
    assert bob["verdict"] == "signed" and bob["txid"] == sent["txid"] and bob["fee"] == sent["fee"]
    bob_pngs = frames(tmp_path, "bob")
    check_framing(bob_pngs, "bbqr")
    assert all(len(i.partial_sigs) == 2 for i in PSBT.parse(bbqr_decode(qr_text(bob_pngs))).inputs)
    assert len(sent["inputs"]) == len(MULTISIG_AMOUNTS)
    broadcast_and_check(watcher, node, bob_pngs, sent, outside, sum(MULTISIG_AMOUNTS))
