#!/usr/bin/env python3
"""The chains of the watcher section of scripts/bench: a regtest node whose chain holds N transactions to one
wallet (5,000 by default; 1,000 and 20,000 for the growth rows), each paying it two outputs (2N UTXOs), spread over
its receive and change addresses so a gap-limit-20 discovery finds them all.

The wallet is BIP84 (wpkh) on the BIP39 test mnemonic "abandon ... about", account m/84h/1h/0h. Its transactions:
transaction i pays receive index i // 5 (N/5 receive addresses, 5 outputs each) and change index i // 20 (N/20
change addresses, 20 outputs each), with values drawn log-uniformly from 1,000 to 2,000,000 sat by a seeded
generator (the same draws for every N: a smaller chain's values are a prefix of a larger one's). They spend the
outputs of ceil(N / 1,250) fan-out transactions (at most 1,250 outputs each, ~155,000 WU: under the standard
400,000 WU) that a funder key makes from as many mature coinbases, and are mined with `generateblock`, 250 per
block, in N/250 blocks.

Generation takes a minute or two (embit signs 5,000 inputs, the kernel validates the blocks), so the datadir is
cached under $XDG_CACHE_HOME/airlock-bench (else ~/.cache/airlock-bench) in a directory named after VERSION and N
(`watcher-v1` for 5,000, the first chain's name; `watcher-v1-N` otherwise), with the expected figures in
fixture.json. Change anything that changes the chain, and bump VERSION.

Usage: watcher_fixture.py [--cache DIR] [--transactions N]   (prints fixture.json; builds the cache first if needed)
As a module: `ensure(cache_dir, transactions)` returns the fixture dict; `start_node(fixture, workdir)` starts a node
on a copy of the cached datadir (the node writes to its datadir, the cache stays as built).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import shutil
import sys
import time
from pathlib import Path

from embit import bip32, bip39, ec
from embit import script as escript
from embit.descriptor.checksum import add_checksum
from embit.networks import NETWORKS
from embit.transaction import Transaction, TransactionInput, TransactionOutput

from regtest.testing import FAUCET_ADDRESS, RegtestNode, sign_p2wpkh  # the regtest package (scripts/setup installs it)

VERSION = "watcher-v1"
NET = NETWORKS["regtest"]
MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
ACCOUNT_PATH = "84h/1h/0h"
TRANSACTIONS = 5_000  # the default chain
SIZES = (1_000, 5_000, 20_000, 100_000)  # the growth rows
RECEIVE_PER_ADDRESS = 5
CHANGE_PER_ADDRESS = 20
PER_FANOUT = 1_250
PER_BLOCK = 250
FANOUTS_PER_BLOCK = 20  # 20 x ~155,000 WU: under the 4,000,000 WU block limit
MIN_SATS, MAX_SATS = 1_000, 2_000_000
WALLET_TX_FEE = 300  # sat; a 1-input, 2-output P2WPKH transaction is 141 vB
FANOUT_FEE_RATE = 2  # sat/vB
FUNDER_KEY = ec.PrivateKey(hashlib.sha256(b"airlock bench funder").digest())
FUNDER_SPK = escript.p2wpkh(FUNDER_KEY.get_public_key())


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "airlock-bench"


def account():
    """(descriptor with origin for Airlock, receive and change descriptors for BDK, account xpub node)."""
    root = bip32.HDKey.from_seed(bip39.mnemonic_to_seed(MNEMONIC), version=NET["xprv"])
    xpub = root.derive("m/" + ACCOUNT_PATH).to_public()
    key = f"[{root.my_fingerprint.hex()}/{ACCOUNT_PATH}]{xpub.to_base58(version=NET['xpub'])}"
    return {
        "descriptor": add_checksum(f"wpkh({key}/<0;1>/*)"),
        "receive_descriptor": add_checksum(f"wpkh({key}/0/*)"),
        "change_descriptor": add_checksum(f"wpkh({key}/1/*)"),
    }, xpub


def _spk(xpub, branch: int, index: int):
    return escript.p2wpkh(xpub.derive([branch, index]))


def _values(count: int) -> list[int]:
    rng = random.Random(20261121)
    return [int(math.exp(rng.uniform(math.log(MIN_SATS), math.log(MAX_SATS)))) for _ in range(count)]


def cache_name(transactions: int) -> str:
    return VERSION if transactions == TRANSACTIONS else f"{VERSION}-{transactions}"


def build(datadir: Path, transactions: int = TRANSACTIONS) -> dict:
    """Builds the chain of `transactions` wallet transactions in a fresh node at `datadir`; returns its figures."""
    if transactions <= 0 or transactions % CHANGE_PER_ADDRESS or transactions % PER_BLOCK:
        raise ValueError(f"{transactions} transactions: must be a positive multiple of {PER_BLOCK}")
    started = time.perf_counter()
    info, xpub = account()
    fanout_count = -(-transactions // PER_FANOUT)
    node = RegtestNode.start(datadir, timeout=300)
    try:
        funder_address = FUNDER_SPK.address(NET)
        # One coinbase per fan-out to the funder, matured by 100 blocks to the faucet.
        node.mine(fanout_count, funder_address)
        node.mine(100)
        coinbases = []
        for height in range(1, fanout_count + 1):
            block = node.cli("getblock", node.cli("getblockhash", height), 2)
            cb = block["tx"][0]
            coinbases.append((cb["txid"], 0, round(cb["vout"][0]["value"] * 100_000_000)))

        values = _values(2 * transactions)
        needs = [values[2 * i] + values[2 * i + 1] + WALLET_TX_FEE for i in range(transactions)]
        fanouts, funding = [], []  # funding[i] = (txid, vout, value) that wallet transaction i spends
        for f, (cb_txid, cb_vout, cb_value) in enumerate(coinbases):
            chunk = needs[f * PER_FANOUT : (f + 1) * PER_FANOUT]
            outs = [TransactionOutput(v, FUNDER_SPK) for v in chunk]
            vsize = 11 + 68 + 31 * (len(outs) + 1) + 3
            change = cb_value - sum(chunk) - vsize * FANOUT_FEE_RATE
            outs.append(TransactionOutput(change, FUNDER_SPK))
            tx = Transaction(version=2, vin=[TransactionInput(bytes.fromhex(cb_txid), cb_vout)], vout=outs)
            sign_p2wpkh(tx, 0, FUNDER_KEY, cb_value)
            assert len(tx.serialize()) * 4 < 400_000, "a fan-out transaction above the standard weight"
            fanouts.append(tx.serialize().hex())
            txid = tx.txid().hex()
            funding += [(txid, n, v) for n, v in enumerate(chunk)]
        for start in range(0, len(fanouts), FANOUTS_PER_BLOCK):  # 100,000 transactions need 80: five blocks
            node.cli("generateblock", FAUCET_ADDRESS, fanouts[start : start + FANOUTS_PER_BLOCK])

        wallet_txs = []
        for i in range(transactions):
            txid, vout, value = funding[i]
            tx = Transaction(
                version=2,
                vin=[TransactionInput(bytes.fromhex(txid), vout, sequence=0xFFFFFFFD)],
                vout=[
                    TransactionOutput(values[2 * i], _spk(xpub, 0, i // RECEIVE_PER_ADDRESS)),
                    TransactionOutput(values[2 * i + 1], _spk(xpub, 1, i // CHANGE_PER_ADDRESS)),
                ],
            )
            sign_p2wpkh(tx, 0, FUNDER_KEY, value)
            wallet_txs.append(tx.serialize().hex())
        first_height = node.height() + 1
        for start in range(0, transactions, PER_BLOCK):
            node.cli("generateblock", FAUCET_ADDRESS, wallet_txs[start : start + PER_BLOCK])
        height = node.height()
        # Spot checks through the node: the wallet's first receive script holds RECEIVE_PER_ADDRESS outputs.
        first = node.cli("scantxoutset", "start", [f"raw({_spk(xpub, 0, 0).data.hex()})"])
        assert len(first["unspents"]) == RECEIVE_PER_ADDRESS, first
    finally:
        code = node.stop()
    assert code == 0, f"the regtest node exited {code} while building the bench chain"
    return {
        "version": VERSION,
        **info,
        "mnemonic": MNEMONIC,
        "account_path": ACCOUNT_PATH,
        "transactions": transactions,
        "utxos": 2 * transactions,
        "balance_sats": sum(values),
        "receive_addresses": transactions // RECEIVE_PER_ADDRESS,
        "change_addresses": transactions // CHANGE_PER_ADDRESS,
        "blocks_with_wallet_transactions": (transactions + PER_BLOCK - 1) // PER_BLOCK,
        "first_height": first_height,
        "height": height,
        "build_seconds": round(time.perf_counter() - started, 1),
    }


def ensure(cache: Path, transactions: int = TRANSACTIONS) -> dict:
    """The cached fixture of `transactions` wallet transactions (its datadir at fixture["datadir"]), built first if
    missing."""
    name = cache_name(transactions)
    target = cache / name
    meta = target / "fixture.json"
    if meta.exists():
        fixture = json.loads(meta.read_text())
    else:
        cache.mkdir(parents=True, exist_ok=True)
        building = cache / (name + ".building")
        shutil.rmtree(building, ignore_errors=True)
        print(f"watcher fixture: building the {transactions}-transaction chain in {building} ...", file=sys.stderr)
        fixture = build(building / "datadir", transactions)
        (building / "fixture.json").write_text(json.dumps(fixture, indent=1) + "\n")
        os.replace(building, target)
        print(f"watcher fixture: built in {fixture['build_seconds']} s, cached in {target}", file=sys.stderr)
    fixture["datadir"] = str(target / "datadir")
    return fixture


def start_node(fixture: dict, workdir: Path) -> RegtestNode:
    """A node on a fresh copy of the cached datadir (its log and lock files stay out of the cache)."""
    copy = workdir / "regtest-datadir"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(
        fixture["datadir"], copy, ignore=shutil.ignore_patterns("node.log", ".lock", ".cookie", "node.json")
    )
    node = RegtestNode.start(copy, timeout=300)
    if node.height() != fixture["height"]:
        node.stop()
        raise RuntimeError(f"the cached chain has height {node.height()}, expected {fixture['height']}")
    return node


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cache", type=Path, default=default_cache())
    p.add_argument(
        "--transactions", type=int, default=TRANSACTIONS, help=f"wallet transactions (default {TRANSACTIONS})"
    )
    args = p.parse_args()
    print(json.dumps(ensure(args.cache, args.transactions), indent=1))


if __name__ == "__main__":
    main()
