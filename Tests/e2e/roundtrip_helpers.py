"""Helpers shared by the round-trip and interop suites: the watcher driven through its CLI, an outside address, and
amounts and fees read from the node."""

from __future__ import annotations

import json
import os
import subprocess
from decimal import Decimal

from embit import ec
from embit import script as escript
from embit.networks import NETWORKS

NET = NETWORKS["regtest"]


class Watcher:
    """`airlock-watcher` in the test's home (the conftest `run` fixture)."""

    def __init__(self, run, node):
        self.run = run
        self.node = node

    def __call__(self, *args, check: bool = True, input: bytes | str | None = None) -> subprocess.CompletedProcess:
        return self.run("airlock-watcher", *map(str, args), check=check, input=input)

    def json(self, *args):
        return json.loads(self(*args, "--json").stdout)

    def balance(self) -> dict:
        return self.json("balance")


def outside_address() -> str:
    """A P2WPKH address of a random key nobody here holds."""
    return escript.p2wpkh(ec.PrivateKey(os.urandom(32)).get_public_key()).address(NET)


def sats(btc) -> int:
    return round(Decimal(str(btc)) * 100_000_000)


def btc(n: int) -> str:
    return str(Decimal(n) / 100_000_000)


def fee_from_chain(node, txid: str) -> int:
    """Inputs (each previous output, from its own transaction) less outputs, from the node's copy of the tx."""
    tx = node.cli("getrawtransaction", txid, 1)
    spent = 0
    for vin in tx["vin"]:
        prev = node.cli("getrawtransaction", vin["txid"], 1)
        spent += sats(prev["vout"][vin["vout"]]["value"])
    return spent - sum(sats(o["value"]) for o in tx["vout"])


def outside_holds(node, address: str) -> list[tuple[str, int]]:
    """(txid, sats) of every unspent output paying `address`, from the node's UTXO set."""
    scan = node.cli("scantxoutset", "start", [f"addr({address})"])
    return [(u["txid"], sats(u["amount"])) for u in scan["unspents"]]
