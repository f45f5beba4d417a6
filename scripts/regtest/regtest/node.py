"""The node process: one Chain, one Mempool, the Electrum and RPC servers on loopback, clean stop on SIGTERM.

`scripts/regtest/node --datadir DIR [--electrum-port N] [--rpc-port N]` (0 = a free port). Once both servers listen
it prints `{"electrum": PORT, "rpc": PORT, "cookie": PATH, "datadir": DIR}` on stdout (one line, then stdout goes
to stderr) and writes the same to DIR/regtest/node.json for `scripts/regtest/cli`.
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import json
import logging
import os
import secrets
import signal
import sys
from collections.abc import Callable
from pathlib import Path

from .chain import BlockRejected, Chain
from .mempool import Mempool
from .primitives import Block, Tx

log = logging.getLogger("regtest.node")


class Node:
    """Chain + mempool + change listeners. Everything runs on the event loop's thread."""

    def __init__(
        self,
        datadir: Path,
        full_rbf: bool = True,
        wallet: bool = True,
        keypool: int | None = None,
        rescan_delay_ms: int = 0,
    ):
        self.datadir = Path(datadir)
        self.rescan_delay = max(0, rescan_delay_ms) / 1000  # seconds a wallet rescan spends on each block
        self.chain = Chain(self.datadir)
        self.mempool = Mempool(self.chain, full_rbf=full_rbf)
        self.listeners: list[Callable[[], None]] = []
        self._load_mempool()
        self.wallets = None  # a WalletManager unless started with --disable-wallet
        if wallet:
            from .wallet import DEFAULT_KEYPOOL, WalletManager

            self.wallets = WalletManager(self, DEFAULT_KEYPOOL if keypool is None else keypool)

    @property
    def mempool_file(self) -> Path:
        return self.chain.kernel_dir / "mempool.json"

    def _load_mempool(self) -> None:
        try:
            raws = json.loads(self.mempool_file.read_text())
        except (OSError, ValueError):
            return
        kept = 0
        for raw_hex in raws if isinstance(raws, list) else []:
            try:
                from .primitives import parse_tx_hex

                tx = parse_tx_hex(raw_hex)
                self.mempool.accept(tx, bytes.fromhex(raw_hex), max_fee_rate=None)
                kept += 1
            except Exception as e:  # a stale entry is dropped, as Core drops it on load
                log.info("mempool.json: dropped a transaction: %s", e)
        log.info("mempool.json: %d transactions restored", kept)

    def save_mempool(self) -> None:
        tmp = self.mempool_file.with_suffix(".tmp")
        tmp.write_text(json.dumps([e.raw.hex() for e in self.mempool.entries.values()]))
        os.replace(tmp, self.mempool_file)

    def close(self) -> None:
        self.save_mempool()
        if self.wallets is not None:
            self.wallets.close()
        self.chain.close()

    def changed(self) -> None:
        for cb in list(self.listeners):
            try:
                cb()
            except Exception:
                log.exception("listener failed")

    # --- operations the servers share ----------------------------------------------------------------------------

    def submit_tx(self, tx: Tx, raw: bytes, max_fee_rate: int | None) -> bytes:
        entry = self.mempool.accept(tx, raw, max_fee_rate=max_fee_rate)
        log.info("accepted %s (fee %d, vsize %d)", entry.tx.txid, entry.fee, entry.vsize)
        if self.wallets is not None:
            self.wallets.on_mempool_tx(tx, raw)
        self.changed()
        return entry.txid

    def mine(self, script_pubkey: bytes, txs: list[Tx] | None = None, submit: bool = True) -> Block:
        """Mines one block paying to `script_pubkey`: with `txs` exactly those (after the coinbase), otherwise what
        the mempool offers. Raises BlockRejected if the kernel refuses it."""
        if txs is None:
            entries, fees = self.mempool.select_for_block()
            txs = [e.tx for e in entries]
        else:
            fees = self._fees_of(txs)
        block = self.chain.build_block(script_pubkey, txs, fees)
        if submit:
            self.chain.submit(block)
            self.mempool.remove_for_block(block.txs)
            if self.wallets is not None:
                self.wallets.on_block(block.txs, self.chain.height)
        return block

    def _fees_of(self, txs: list[Tx]) -> int:
        """Fees of an explicit transaction list, spending chain coins or earlier ones in the list."""
        created: dict[tuple[bytes, int], int] = {}
        fees = 0
        for t in txs:
            value_in = 0
            for i in t.vin:
                if i.outpoint in created:
                    value_in += created.pop(i.outpoint)
                elif (c := self.chain.utxos.get(i.outpoint)) is not None:
                    value_in += c.value
                else:
                    raise BlockRejected("bad-txns-inputs-missingorspent")
            fees += value_in - sum(o.value for o in t.vout)
            for n, o in enumerate(t.vout):
                created[(t.txid_bytes, n)] = o.value
        return fees

    def generate(self, n: int, script_pubkey: bytes) -> list[str]:
        hashes = []
        try:
            for _ in range(n):
                hashes.append(self.mine(script_pubkey).header.hash)
        finally:
            if hashes:
                self.changed()
        return hashes


def _write_private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)


async def serve(args: argparse.Namespace) -> int:
    from .electrum import ElectrumServer
    from .rpc import RpcServer

    datadir = Path(args.datadir).resolve()
    (datadir / "regtest").mkdir(parents=True, exist_ok=True)
    lock = open(datadir / "regtest" / ".lock", "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        print(
            f"Error: Cannot obtain a lock on data directory {datadir}. The node is probably already running.",
            file=sys.stderr,
        )
        return 1

    delay = args.rescan_delay_ms
    if delay is None:
        delay = int(os.environ.get("REGTEST_RESCAN_DELAY_MS", "0") or 0)
    node = Node(
        datadir,
        full_rbf=bool(args.mempoolfullrbf),
        wallet=not args.disable_wallet,
        keypool=args.keypool,
        rescan_delay_ms=delay,
    )
    cookie_path = datadir / "regtest" / ".cookie"
    password = secrets.token_hex(32)
    _write_private(cookie_path, f"__cookie__:{password}")

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)

    electrum = ElectrumServer(node)
    rpc = RpcServer(node, "__cookie__", password, stop)
    await electrum.start("127.0.0.1", args.electrum_port)
    await rpc.start("127.0.0.1", args.rpc_port)
    info = {"electrum": electrum.port, "rpc": rpc.port, "cookie": str(cookie_path), "datadir": str(datadir)}
    _write_private(datadir / "regtest" / "node.json", json.dumps({**info, "pid": os.getpid()}))
    sys.stdout.write(json.dumps(info) + "\n")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # nothing else ever reaches the caller's stdout pipe
    log.info("serving electrum on %d, rpc on %d, height %d", electrum.port, rpc.port, node.chain.height)

    await stop.wait()
    log.info("stopping")
    await electrum.stop()
    await rpc.stop()
    node.close()
    for p in (cookie_path, datadir / "regtest" / "node.json"):
        p.unlink(missing_ok=True)
    log.info("stopped")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="scripts/regtest/node", description=__doc__.split("\n\n")[0])
    p.add_argument("--datadir", required=True, help="chain, indexes, cookie and node.json live here")
    p.add_argument("--electrum-port", type=int, default=0, help="Electrum TCP port on 127.0.0.1 (0 = free port)")
    p.add_argument("--rpc-port", type=int, default=0, help="JSON-RPC HTTP port on 127.0.0.1 (0 = free port)")
    p.add_argument(
        "--mempoolfullrbf",
        type=int,
        choices=(0, 1),
        default=1,
        help="1 (default, as Core 28): any conflicting spend may replace; 0: only BIP125-signalling ones",
    )
    p.add_argument(
        "--disable-wallet",
        action="store_true",
        help="no wallet RPCs (as Core's -disablewallet): they answer -32601 Method not found",
    )
    p.add_argument(
        "--keypool",
        type=int,
        default=None,
        help="scripts a ranged wallet descriptor is topped up beyond its next index (Core's -keypool; "
        "default here 100, Core 1000)",
    )
    p.add_argument(
        "--rescan-delay-ms",
        type=int,
        default=None,
        help="milliseconds a wallet rescan spends on each block (default: $REGTEST_RESCAN_DELAY_MS, else 0), "
        "to watch a slow rescan and getwalletinfo's scanning progress as on a large chain",
    )
    p.add_argument("--debug", action="store_true", help="log the kernel's messages too")
    args = p.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.debug else logging.INFO,
        stream=sys.stderr,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    return asyncio.run(serve(args))


if __name__ == "__main__":
    sys.exit(main())
