#!/usr/bin/env python3
"""The psbt section of scripts/bench: the peers' side of `airlock-bench psbt`, on the very PSBT files it wrote.

Usage: psbt.py DIR RUNS. DIR holds workloads.json, the NAME.psbt files and airlock.json (`airlock-bench psbt --json`).
Prints JSON-lines rows for scripts/bench.d/table.py: Airlock's medians, then BDK's and embit's.

Signing is timed on an already parsed PSBT in every implementation (BDK: `wallet.sign(psbt, SignOptions())` with a
wallet holding the account's tprv descriptors; embit: `psbt.sign_with(root)`), each run on a freshly parsed copy.
Parse+serialize: BDK's Python API takes and gives base64 text, embit and Airlock binary. Times are process CPU
time (the machine may be shared); wall-clock medians travel along in `wall_ms`.
"""

import importlib.metadata
import json
import os
import statistics
import sys
import time
from pathlib import Path

import bdkpython as bdk
from embit import bip32, bip39, ec, script
from embit.networks import NETWORKS
from embit.psbt import PSBT

NET = NETWORKS["regtest"]
BDK_VERSION = "bdkpython " + importlib.metadata.version("bdkpython")
EMBIT_VERSION = "embit " + importlib.metadata.version("embit")
# embit signs in pure Python (about 9 s a run for the 1,445 inputs and 1.2 s for the 500 on an idle machine), so
# its five runs take about a minute; BENCH_EMBIT_RUNS lowers its count (its row then says how many it had).
EMBIT_SIGN_RUNS = int(os.environ.get("BENCH_EMBIT_RUNS", "0")) or None


def row(workload, impl, times, detail="", wall=None):
    return {
        "section": "psbt",
        "workload": workload,
        "impl": impl,
        "ms": statistics.median(times),
        "detail": detail,
        "wall_ms": statistics.median(wall) if wall else None,
    }


class Times:
    """Process CPU times (what the table compares, as airlock-bench reports them) and wall-clock times, in ms."""

    def __init__(self):
        self.cpu, self.wall = [], []

    def measure(self, body):
        cpu, start = time.process_time(), time.perf_counter()
        body()
        self.wall.append((time.perf_counter() - start) * 1e3)
        self.cpu.append((time.process_time() - cpu) * 1e3)

    def row(self, workload, impl, detail=""):
        return row(workload, impl, self.cpu, detail, self.wall)


def checked_signatures(name, impl, signed, kind):
    """Every input's signature checked with embit against the sighash it signs; returns them per input.

    P2WPKH: the partial signature (DER, SIGHASH_ALL) verified under its public key with the BIP143 sighash. P2TR: the
    key-path signature (PSBT_IN_TAP_KEY_SIG, which embit leaves in `unknown`) verified under the output key with the
    BIP341 sighash. A missing or wrong signature ends the bench: no time counts for work that was not done.
    """
    tx = signed.tx
    utxos = [signed.utxo(i) for i in range(len(signed.inputs))]
    found = []
    for i, inp in enumerate(signed.inputs):
        if kind == "tr":
            sig = inp.unknown.get(b"\x13")
            if sig is None or len(sig) != 64:
                sys.exit(f"psbt bench: {impl} left input {i} of {name} without a key-path signature")
            digest = tx.sighash_taproot(i, [u.script_pubkey for u in utxos], [u.value for u in utxos])
            key = ec.PublicKey.from_xonly(utxos[i].script_pubkey.data[2:])
            ok = key.schnorr_verify(ec.SchnorrSig(sig), digest)
            found.append(sig)
        else:
            if len(inp.partial_sigs) != 1:
                sys.exit(f"psbt bench: {impl} left input {i} of {name} with {len(inp.partial_sigs)} signatures")
            (pub, sig), *_ = inp.partial_sigs.items()
            script_code = script.p2pkh(pub)
            digest = tx.sighash_segwit(i, script_code, utxos[i].value)
            ok = pub.verify(ec.Signature.parse(sig[:-1]), digest) and sig[-1] == 1
            found.append(sig)
        if not ok:
            sys.exit(f"psbt bench: {impl}'s signature on input {i} of {name} does not verify")
    return found


def bdk_wallet(root, kind, path):
    account = root.derive("m/" + path).to_base58(NET["xprv"])
    key = f"[{root.my_fingerprint.hex()}/{path}]{account}"
    wrap = "tr({})" if kind == "tr" else "wpkh({})"
    return bdk.Wallet(
        bdk.Descriptor(wrap.format(key + "/0/*"), bdk.NetworkKind.TEST),
        bdk.Descriptor(wrap.format(key + "/1/*"), bdk.NetworkKind.TEST),
        bdk.Network.REGTEST,
        bdk.Persister.new_in_memory(),
    )


def signed_inputs_bdk(psbt, kind):
    inputs = psbt.input()
    return sum(1 for i in inputs if (i.tap_key_sig if kind == "tr" else i.partial_sigs))


def main():
    directory, runs = Path(sys.argv[1]), int(sys.argv[2])
    spec = json.loads((directory / "workloads.json").read_text())
    airlock = json.loads((directory / "airlock.json").read_text())
    rows = [
        row(r["name"], "airlock", [r["medianMilliseconds"]], wall=[r["medianWallMilliseconds"]])
        for r in airlock["results"]
    ]
    # The floor airlock-bench measured in the same run: libsecp256k1's work alone (a row, so the table prints the
    # multiple as airlock/peer).
    rows += [
        row(
            r["name"],
            "libsecp256k1 floor",
            [r["floorMilliseconds"]],
            "same keys, sign + key check" + (", whole sign" if r["operation"] == "sign-command" else ""),
        )
        for r in airlock["results"]
        if r.get("floorMilliseconds")
    ]
    # The whole `sign` command's rows (sign-command-*): its whole signed PSBT verified like the signing rows'.
    kinds = {w["name"]: w["kind"] for w in spec["workloads"]}
    for r in airlock["results"]:
        if r["operation"] == "sign-command":
            name = r["name"]
            kind = kinds[name.replace("sign-command-", "sign-")]
            checked_signatures(name, "airlock", PSBT.parse((directory / (name + ".signed.psbt")).read_bytes()), kind)
    root = bip32.HDKey.from_seed(bip39.mnemonic_to_seed(spec["mnemonic"]), version=NET["xprv"])
    options = bdk.SignOptions(
        trust_witness_utxo=False,
        assume_height=None,
        allow_all_sighashes=False,
        try_finalize=False,
        sign_with_tap_internal_key=True,
        allow_grinding=True,
    )
    for workload in spec["workloads"]:
        name, kind = workload["name"], workload["kind"]
        raw = (directory / workload["file"]).read_bytes()
        text = PSBT.parse(raw).to_base64()
        if workload["operation"] == "sign":
            wallet = bdk_wallet(root, kind, workload["account_path"])
            bdk_times, embit_times = Times(), Times()
            for run in range(runs):
                psbt = bdk.Psbt(text)
                bdk_times.measure(lambda: wallet.sign(psbt, options))
                if signed_inputs_bdk(psbt, kind) != workload["inputs"]:
                    sys.exit("psbt bench: BDK did not sign every input of " + name)
                if EMBIT_SIGN_RUNS is not None and run >= EMBIT_SIGN_RUNS:
                    continue
                parsed = PSBT.parse(raw)
                count = []
                embit_times.measure(lambda: count.append(parsed.sign_with(root)))
                if count[0] != workload["inputs"]:
                    sys.exit("psbt bench: embit signed {} of {} inputs".format(count[0], workload["inputs"]))
            # Both sides' answers checked, and compared: RFC 6979 with the same low-R grinding gives byte-identical
            # ECDSA signatures (BIP340 signatures differ with the auxiliary randomness, so those are only verified).
            ours = checked_signatures(
                name, "airlock", PSBT.parse((directory / workload["signed_file"]).read_bytes()), kind
            )
            theirs = checked_signatures(name, "bdk", PSBT.from_base64(psbt.serialize()), kind)
            if kind != "tr" and ours != theirs:
                sys.exit(f"psbt bench: Airlock's and BDK's ECDSA signatures differ on {name}")
            embit_runs = len(embit_times.cpu)
            rows.append(bdk_times.row(name, "bdk", BDK_VERSION))
            rows.append(
                embit_times.row(name, "embit", "{}, {} run{}".format(EMBIT_VERSION, embit_runs, "s"[embit_runs == 1 :]))
            )
        else:
            bdk_times, embit_times = Times(), Times()
            for _ in range(runs):
                bdk_times.measure(lambda: bdk.Psbt(text).serialize())
                embit_times.measure(lambda: PSBT.parse(raw).serialize())
            rows.append(bdk_times.row(name, "bdk", BDK_VERSION + ", base64"))
            rows.append(embit_times.row(name, "embit", EMBIT_VERSION))
    for r in rows:
        print(json.dumps(r))


if __name__ == "__main__":
    main()
