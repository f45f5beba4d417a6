"""scripts/demo's side of the regtest chain: the faucet, the outside address, and what the node says about a txid.

The regtest node has no wallet RPCs (docs/regtest.md), so the faucet's key signs here, with embit, the way
the regtest package's `regtest.testing` does. Both keys come from fixed strings: regtest only, never use them elsewhere.

    chain.py --datadir DIR faucet-address      the faucet's address (blocks the demo mines pay it)
    chain.py --datadir DIR outside-address     an address of no vault: where the demo's payments go
    chain.py --datadir DIR pay ADDR SATS       the faucet pays ADDR (unconfirmed); prints the txid. Mines 101
                                               blocks to the faucet first when it has no mature coin
    chain.py --datadir DIR received ADDR       confirmed sats at ADDR (scantxoutset)
    chain.py --datadir DIR confirmation TXID   JSON: the block the transaction is in (height, hash, confirmations),
                                               whether that block is on the active chain, and the fee in sats

Errors from the node print its code and message and exit 5 (the CLI contract's node/network code, docs/architecture.md).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys

from embit import ec, script
from embit.networks import NETWORKS
from embit.transaction import SIGHASH, Transaction, TransactionInput, TransactionOutput

from regtest.cli import CliError, RpcCallError, call  # the node's own client (scripts/setup installs the package)

NET = NETWORKS["regtest"]
FAUCET_KEY = ec.PrivateKey(hashlib.sha256(b"airlock demo faucet").digest())
FAUCET_SPK = script.p2wpkh(FAUCET_KEY.get_public_key())
FAUCET_ADDRESS = FAUCET_SPK.address(NET)
OUTSIDE_KEY = ec.PrivateKey(hashlib.sha256(b"airlock demo outside").digest())
OUTSIDE_ADDRESS = script.p2wpkh(OUTSIDE_KEY.get_public_key()).address(NET)
COINBASE_MATURITY = 100
FEE = 400  # one P2WPKH input, two outputs: 141 vB at about 2.8 sat/vB
SATS_PER_BTC = 100_000_000


def sats(btc: float) -> int:
    return round(btc * SATS_PER_BTC)


def faucet_coins(datadir: str) -> list[tuple[str, int, int]]:
    """Mature faucet coins that no mempool transaction spends yet."""
    res = call(datadir, "scantxoutset", ["start", [f"addr({FAUCET_ADDRESS})"]])
    spent = set()
    for txid in call(datadir, "getrawmempool", []):
        for vin in call(datadir, "getrawtransaction", [txid, 1])["vin"]:
            spent.add((vin.get("txid"), vin.get("vout")))
    coins = []
    for u in res["unspents"]:
        if u["coinbase"] and res["height"] + 1 - u["height"] < COINBASE_MATURITY:
            continue
        if (u["txid"], u["vout"]) not in spent:
            coins.append((u["txid"], u["vout"], sats(u["amount"])))
    return coins


def pay(datadir: str, address: str, amount: int) -> str:
    spk = script.address_to_scriptpubkey(address)
    coins = [c for c in faucet_coins(datadir) if c[2] >= amount + FEE + 1000]
    if not coins:
        call(datadir, "generatetoaddress", [COINBASE_MATURITY + 1, FAUCET_ADDRESS])
        coins = [c for c in faucet_coins(datadir) if c[2] >= amount + FEE + 1000]
    if not coins:
        raise SystemExit("chain.py: the faucet has no coin large enough")
    txid, vout, value = max(coins, key=lambda c: c[2])
    tx = Transaction(
        version=2,
        vin=[TransactionInput(bytes.fromhex(txid), vout, sequence=0xFFFFFFFD)],
        vout=[TransactionOutput(amount, spk), TransactionOutput(value - amount - FEE, FAUCET_SPK)],
    )
    pub = FAUCET_KEY.get_public_key()
    sighash = tx.sighash_segwit(0, script.p2pkh(pub), value)
    tx.vin[0].witness = script.Witness([FAUCET_KEY.sign(sighash).serialize() + bytes([SIGHASH.ALL]), pub.sec()])
    return call(datadir, "sendrawtransaction", [tx.serialize().hex()])


def received(datadir: str, address: str) -> int:
    res = call(datadir, "scantxoutset", ["start", [f"addr({address})"]])
    return sum(sats(u["amount"]) for u in res["unspents"])


def confirmation(datadir: str, txid: str) -> dict:
    tx = call(datadir, "getrawtransaction", [txid, 1])
    out: dict = {"txid": txid, "confirmations": tx.get("confirmations", 0), "blockhash": tx.get("blockhash")}
    if out["blockhash"]:
        header = call(datadir, "getblockheader", [out["blockhash"]])
        out["height"] = header["height"]
        # The node keeps a block only when the kernel made it the tip; this checks it is still on the active chain.
        out["active_chain"] = call(datadir, "getblockhash", [header["height"]]) == out["blockhash"]
        block = call(datadir, "getblock", [out["blockhash"], 1])
        out["in_block"] = txid in block["tx"]
    spent = 0
    for vin in tx["vin"]:
        prev = call(datadir, "getrawtransaction", [vin["txid"], 1])
        spent += sats(prev["vout"][vin["vout"]]["value"])
    out["fee"] = spent - sum(sats(v["value"]) for v in tx["vout"])
    out["vsize"] = tx["vsize"]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datadir", required=True, help="the regtest node's datadir")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("faucet-address")
    sub.add_parser("outside-address")
    p = sub.add_parser("pay")
    p.add_argument("address")
    p.add_argument("sats", type=int)
    sub.add_parser("received").add_argument("address")
    sub.add_parser("confirmation").add_argument("txid")
    args = parser.parse_args()
    try:
        if args.command == "faucet-address":
            print(FAUCET_ADDRESS)
        elif args.command == "outside-address":
            print(OUTSIDE_ADDRESS)
        elif args.command == "pay":
            print(pay(args.datadir, args.address, args.sats))
        elif args.command == "received":
            print(received(args.datadir, args.address))
        else:
            print(json.dumps(confirmation(args.datadir, args.txid)))
    except (RpcCallError, CliError) as e:
        print(f"chain.py: {e}", file=sys.stderr)
        return 5
    return 0


if __name__ == "__main__":
    sys.exit(main())
