"""A watch-only descriptor wallet: the subset of Bitcoin Core's wallet RPC that a watch-only coordinator uses.

Wallets live in DATADIR/regtest/wallets/<name>/wallet.json (the wallet named "" in DATADIR/regtest/wallets/, as
Core's default wallet), are served on `/wallet/<name>` (and on `/` while exactly one is loaded), follow every new
block and mempool transaction, and are rescanned from the chain the node keeps. Only watch-only descriptor wallets
exist here: `createwallet` needs `disable_private_keys=true`. Descriptors are derived with embit.

What the wallet knows of a transaction (confirmed, in the mempool, inactive after leaving it, or conflicted by a
confirmed spend of one of its inputs) is read from the chain and mempool whenever it is asked, so an RBF eviction or
a block shows at once, as in Core.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import time
from pathlib import Path

from embit.descriptor.checksum import add_checksum

from .chain import COINBASE_MATURITY
from .primitives import Tx, btc, hash_to_hex, parse_tx_hex
from .rpcerrors import (
    RPC_INVALID_ADDRESS_OR_KEY,
    RPC_INVALID_PARAMETER,
    RPC_TYPE_ERROR,
    RpcError,
    _hash_param,
    _typename,
    _want,
    _want_int,
)
from .script import AddressError, DescriptorError, ParsedDescriptor, address_of, address_to_script

log = logging.getLogger("regtest.wallet")

RPC_WALLET_ERROR = -4
RPC_WALLET_NOT_FOUND = -18
RPC_WALLET_NOT_SPECIFIED = -19
RPC_WALLET_ALREADY_LOADED = -35
RPC_WALLET_ALREADY_EXISTS = -36

DEFAULT_KEYPOOL = 100  # Core's -keypool is 1000; smaller here because embit derives ~500 keys/s (--keypool N)
TIMESTAMP_WINDOW = 7200  # Core rescans from the first block within two hours before the import timestamp
WALLET_FORMAT = "airlock-regtest-wallet"
NAME_RE = re.compile(r"^[A-Za-z0-9._+=@ -]{0,100}$")

WALLET_METHODS = {
    "createwallet",
    "loadwallet",
    "unloadwallet",
    "listwallets",
    "getwalletinfo",
    "importdescriptors",
    "listdescriptors",
    "listunspent",
    "listtransactions",
    "listsinceblock",
    "gettransaction",
    "getbalances",
}
# Methods that do not need a wallet (and so work on `/` whatever is loaded).
NON_WALLET = {"createwallet", "loadwallet", "listwallets", "unloadwallet"}

PARAM_NAMES = {
    "createwallet": [
        "wallet_name",
        "disable_private_keys",
        "blank",
        "passphrase",
        "avoid_reuse",
        "descriptors",
        "load_on_startup",
        "external_signer",
    ],
    "loadwallet": ["filename", "load_on_startup"],
    "unloadwallet": ["wallet_name", "load_on_startup"],
    "listwallets": [],
    "getwalletinfo": [],
    "importdescriptors": ["requests"],
    "listdescriptors": ["private"],
    "listunspent": ["minconf", "maxconf", "addresses", "include_unsafe", "query_options"],
    "listtransactions": ["label", "count", "skip", "include_watchonly"],
    "listsinceblock": [
        "blockhash",
        "target_confirmations",
        "include_watchonly",
        "include_removed",
        "include_change",
        "label",
    ],
    "gettransaction": ["txid", "include_watchonly", "verbose"],
    "getbalances": [],
}


def rescan_start_height(blocks, timestamp: int) -> int:
    """Core's FindFirstBlockWithTimeAndHeight(timestamp - TIMESTAMP_WINDOW): the first block whose time, or any
    earlier block's, is at or after it (block times need not increase); past the tip when there is none."""
    wanted, highest = timestamp - TIMESTAMP_WINDOW, None
    for b in blocks:
        highest = b.header.time if highest is None else max(highest, b.header.time)
        if highest >= wanted:
            return b.height
    return len(blocks)


class WalletDescriptor:
    """One imported descriptor (single path) with its range and the scripts derived for it."""

    def __init__(
        self,
        desc: str,
        timestamp: int,
        active: bool,
        internal: bool,
        range_start: int,
        range_end: int,
        next_index: int,
        label: str = "",
    ):
        self.desc = desc  # normalized, with checksum
        self.timestamp = timestamp
        self.active = active
        self.internal = internal
        self.range_start = range_start
        self.range_end = range_end  # inclusive
        self.next_index = next_index
        self.label = label
        parsed = ParsedDescriptor(desc)  # addr(…) and raw(…) too, which embit does not parse
        self.fixed = parsed._fixed
        self.embit = parsed._desc
        self.is_range = self.embit is not None and self.embit.is_wildcard
        self.scripts: dict[bytes, int] = {}
        self.derive()

    def derive(self) -> list[bytes]:
        """Derives the scripts of the range not derived yet; returns the new ones."""
        new = []
        if not self.is_range:
            if not self.scripts:
                spk = self.fixed if self.fixed is not None else self.embit.script_pubkey().data
                self.scripts[spk] = 0
                new.append(spk)
            return new
        have = set(self.scripts.values())
        for i in range(self.range_start, self.range_end + 1):
            if i not in have:
                spk = self.embit.derive(i).script_pubkey().data
                self.scripts[spk] = i
                new.append(spk)
        return new

    def derived_desc(self, index: int) -> str:
        return add_checksum(str(self.embit.derive(index))) if self.is_range else self.desc

    def to_json(self) -> dict:
        return {
            "desc": self.desc,
            "timestamp": self.timestamp,
            "active": self.active,
            "internal": self.internal,
            "range": [self.range_start, self.range_end],
            "next_index": self.next_index,
            "label": self.label,
        }

    @classmethod
    def from_json(cls, d: dict) -> WalletDescriptor:
        return cls(
            d["desc"],
            d["timestamp"],
            d["active"],
            d["internal"],
            d["range"][0],
            d["range"][1],
            d["next_index"],
            d.get("label", ""),
        )


class WalletTx:
    def __init__(self, tx: Tx, raw: bytes, time_received: int, order: int):
        self.tx = tx
        self.raw = raw
        self.txid = tx.txid_bytes
        self.time_received = time_received
        self.order = order


class Wallet:
    def __init__(self, manager: WalletManager, name: str, path: Path):
        self.manager = manager
        self.node = manager.node
        self.name = name
        self.path = path  # the wallet's directory
        self.avoid_reuse = False
        self.blank = True
        self.birthtime: int | None = None
        self.descriptors: list[WalletDescriptor] = []
        self.txs: dict[bytes, WalletTx] = {}
        self.spks: dict[bytes, tuple[WalletDescriptor, int]] = {}
        self.last_processed = -1  # height of the last block the wallet has seen
        self._order = 0
        self.scanning: dict | None = None  # while an import's rescan runs: its start (monotonic) and progress

    # --- persistence ---------------------------------------------------------------------------------------------

    @property
    def file(self) -> Path:
        return self.path / "wallet.json"

    def save(self) -> None:
        data = {
            "format": WALLET_FORMAT,
            "version": 1,
            "name": self.name,
            "avoid_reuse": self.avoid_reuse,
            "blank": self.blank,
            "birthtime": self.birthtime,
            "last_processed": self.last_processed,
            "descriptors": [d.to_json() for d in self.descriptors],
            "txs": [{"hex": w.raw.hex(), "time": w.time_received, "order": w.order} for w in self.txs.values()],
        }
        self.path.mkdir(parents=True, exist_ok=True)
        tmp = self.file.with_suffix(".tmp")
        tmp.write_text(json.dumps(data))
        os.replace(tmp, self.file)

    def load(self) -> None:
        data = json.loads(self.file.read_text())
        if data.get("format") != WALLET_FORMAT:
            raise ValueError("not a wallet of this node")
        self.avoid_reuse = data.get("avoid_reuse", False)
        self.blank = data.get("blank", True)
        self.birthtime = data.get("birthtime")
        self.last_processed = data.get("last_processed", -1)
        self.descriptors = [WalletDescriptor.from_json(d) for d in data.get("descriptors", [])]
        for d in self.descriptors:
            for spk, i in d.scripts.items():
                self.spks[spk] = (d, i)
        for t in data.get("txs", []):
            raw = bytes.fromhex(t["hex"])
            w = WalletTx(parse_tx_hex(t["hex"]), raw, t["time"], t["order"])
            self.txs[w.txid] = w
            self._order = max(self._order, w.order + 1)

    # --- following the chain -------------------------------------------------------------------------------------

    def is_mine(self, spk: bytes) -> bool:
        return spk in self.spks

    def _mark_used(self, spk: bytes) -> None:
        d, i = self.spks[spk]
        if d.is_range and i >= d.next_index:
            d.next_index = i + 1
            self._top_up(d)

    def _top_up(self, d: WalletDescriptor) -> None:
        if d.is_range:
            d.range_end = max(d.range_end, d.next_index + self.manager.keypool - 1)
        for spk in d.derive():
            self.spks[spk] = (d, d.scripts[spk])

    def _relevant(self, tx: Tx) -> bool:
        if any(o.script_pubkey in self.spks for o in tx.vout):
            return True
        for i in tx.vin:
            parent = self.txs.get(i.prev_txid)
            if (
                parent is not None
                and i.prev_vout < len(parent.tx.vout)
                and parent.tx.vout[i.prev_vout].script_pubkey in self.spks
            ):
                return True
        return False

    def add_if_relevant(self, tx: Tx, raw: bytes, when: int | None = None) -> bool:
        if not self._relevant(tx):
            return False
        for o in tx.vout:
            if o.script_pubkey in self.spks:
                self._mark_used(o.script_pubkey)
        if tx.txid_bytes not in self.txs:
            self.txs[tx.txid_bytes] = WalletTx(tx, raw, int(time.time()) if when is None else when, self._order)
            self._order += 1
        return True

    def rescan(self, start_height: int) -> None:
        """Every transaction touching the wallet's scripts from `start_height` on, in chain order; repeated while
        newly used addresses top the ranges up (Core's rescan sees them in later blocks the same way)."""
        chain = self.node.chain
        import hashlib

        done: set[bytes] = set()
        while True:
            before = len(self.spks)
            found: set[tuple[int, int, bytes]] = set()
            for spk in list(self.spks):
                for height, txid in chain.history.get(hashlib.sha256(spk).digest(), []):
                    if height >= start_height and txid not in done:
                        found.add((height, chain.txindex[txid].pos, txid))
            for height, _pos, txid in sorted(found):
                if txid in done:
                    continue
                loc = chain.txindex[txid]
                tx = parse_tx_hex(loc.raw.hex())
                if self.add_if_relevant(tx, loc.raw, chain.blocks[height].header.time):
                    done.add(txid)
            if len(self.spks) == before:
                break
        for e in list(self.node.mempool.entries.values()):
            self.add_if_relevant(e.tx, e.raw, e.time)
        self.last_processed = chain.height

    async def rescan_blocks(self, start_height: int, delay: float) -> tuple[int, int]:
        """Core's rescan of an import: block by block from `start_height` to the tip, spending `delay` seconds on
        each (the node's --rescan-delay-ms), with `getwalletinfo.scanning` showing the progress meanwhile and the
        other RPC clients served. Returns the first and last height scanned."""
        chain = self.node.chain
        end = chain.height
        started = time.monotonic()
        self.scanning = {"started": started, "progress": 0.0}
        try:
            for height in range(start_height, end + 1):
                for txid in chain.blocks[height].txids:
                    loc = chain.txindex.get(txid)
                    if loc is None:  # the genesis coinbase, which is not a transaction of the chain (as in Core)
                        continue
                    self.add_if_relevant(parse_tx_hex(loc.raw.hex()), loc.raw, chain.blocks[height].header.time)
                self.scanning["progress"] = (height - start_height + 1) / (end - start_height + 1)
                await asyncio.sleep(delay)
                if chain.height < end:  # blocks disconnected meanwhile: what is left is not the chain
                    break
            for e in list(self.node.mempool.entries.values()):
                self.add_if_relevant(e.tx, e.raw, e.time)
            self.last_processed = max(self.last_processed, end)
        finally:
            self.scanning = None
        return start_height, end

    def on_block(self, txs: list[Tx], height: int) -> None:
        changed = False
        for t in txs:
            loc = self.node.chain.txindex.get(t.txid_bytes)
            if loc is not None and self.add_if_relevant(t, loc.raw):
                changed = True
        self.last_processed = height
        if changed:
            self.save()

    def on_mempool_tx(self, tx: Tx, raw: bytes) -> None:
        if self.add_if_relevant(tx, raw):
            self.save()

    # --- transaction state ---------------------------------------------------------------------------------------

    def depth(self, w: WalletTx, seen: frozenset = frozenset()) -> int:
        """Core's GetTxDepthInMainChain: confirmations; 0 in or out of the mempool; negative when a conflicting
        transaction is confirmed (the depth of that block), inherited by descendants."""
        chain = self.node.chain
        loc = chain.get_tx(w.txid)
        if loc is not None:
            return chain.height - loc.height + 1
        if w.txid in self.node.mempool.entries:
            return 0
        worst = 0
        for i in w.tx.vin:
            spender = chain.spent_by.get(i.outpoint)
            if spender is not None and spender != w.txid:
                worst = min(worst, -(chain.height - chain.txindex[spender].height + 1))
            parent = self.txs.get(i.prev_txid)
            if parent is not None and parent.txid not in seen:
                d = self.depth(parent, seen | {w.txid})
                if d < 0:
                    worst = min(worst, d)
        return worst

    def in_mempool(self, w: WalletTx) -> bool:
        return w.txid in self.node.mempool.entries

    def mempool_conflicted(self, w: WalletTx) -> bool:
        spenders = self.node.mempool.spenders
        return any(spenders.get(i.outpoint, w.txid) != w.txid for i in w.tx.vin) and not self.in_mempool(w)

    def is_from_me(self, w: WalletTx) -> bool:
        return self.debit(w) > 0

    def debit(self, w: WalletTx) -> int:
        total = 0
        for i in w.tx.vin:
            parent = self.txs.get(i.prev_txid)
            if parent is not None and i.prev_vout < len(parent.tx.vout):
                o = parent.tx.vout[i.prev_vout]
                if o.script_pubkey in self.spks:
                    total += o.value
        return total

    def credit(self, w: WalletTx) -> int:
        return sum(o.value for o in w.tx.vout if o.script_pubkey in self.spks)

    def is_trusted(self, w: WalletTx, depth: int | None = None, seen: frozenset = frozenset()) -> bool:
        """Core's CachedTxIsTrusted: confirmed, or in the mempool and spending only the wallet's own trusted coins."""
        d = self.depth(w) if depth is None else depth
        if d >= 1:
            return True
        if d < 0 or not self.in_mempool(w):
            return False
        for i in w.tx.vin:
            parent = self.txs.get(i.prev_txid)
            if parent is None or parent.tx.vout[i.prev_vout].script_pubkey not in self.spks:
                return False
            if parent.txid in seen or not self.is_trusted(parent, None, seen | {w.txid}):
                return False
        return True

    def is_spent(self, outpoint: tuple[bytes, int]) -> bool:
        """Core 28's IsSpent: some wallet transaction spends it that is not conflicted (in a block or the mempool)."""
        for w in self.txs.values():
            if outpoint in (i.outpoint for i in w.tx.vin):
                if self.depth(w) >= 0 and not self.mempool_conflicted(w):
                    return True
        return False

    def immature(self, w: WalletTx, depth: int) -> bool:
        return w.tx.is_coinbase and depth > 0 and COINBASE_MATURITY + 1 - depth > 0

    def coins(self):
        """(WalletTx, vout, TxOut, depth) of every unspent output of the wallet."""
        for w in self.txs.values():
            depth = None
            for n, o in enumerate(w.tx.vout):
                if o.script_pubkey in self.spks and not self.is_spent((w.txid, n)):
                    if depth is None:
                        depth = self.depth(w)
                    yield w, n, o, depth


class WalletManager:
    """The node's wallets: the loaded ones by name, creation, loading, and the hooks that feed them."""

    def __init__(self, node, keypool: int = DEFAULT_KEYPOOL):
        self.node = node
        self.keypool = keypool
        self.dir = node.chain.kernel_dir / "wallets"
        self.settings_file = node.chain.kernel_dir / "settings.json"
        self.loaded: dict[str, Wallet] = {}
        self.dir.mkdir(parents=True, exist_ok=True)
        for name in self._settings().get("wallet", []):
            try:
                self.load(name)
            except RpcError as e:
                log.warning("wallet %r not loaded at start: %s", name, e.message)

    # --- settings.json (load_on_startup) --------------------------------------------------------------------------

    def _settings(self) -> dict:
        try:
            data = json.loads(self.settings_file.read_text())
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def _set_startup(self, name: str, load: bool | None) -> None:
        if load is None:
            return
        s = self._settings()
        names = [n for n in s.get("wallet", []) if n != name]
        if load:
            names.append(name)
        s["wallet"] = names
        tmp = self.settings_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(s, indent=1))
        os.replace(tmp, self.settings_file)

    # --- wallets -------------------------------------------------------------------------------------------------

    def path_of(self, name: str) -> Path:
        if not isinstance(name, str) or not NAME_RE.match(name) or name in (".", "..") or ".." in name:
            raise RpcError(
                RPC_WALLET_ERROR,
                f"Invalid wallet name '{name}': this node accepts letters, digits, space and ._+=@- (no paths)",
            )
        return self.dir / name if name else self.dir

    def create(self, name: str, avoid_reuse: bool, blank: bool, load_on_startup: bool | None) -> Wallet:
        path = self.path_of(name)
        if name in self.loaded or (path / "wallet.json").exists():
            raise RpcError(
                RPC_WALLET_ERROR,
                f"Wallet file verification failed. Failed to create database path '{path}'. Database already exists.",
            )
        w = Wallet(self, name, path)
        w.avoid_reuse, w.blank, w.birthtime = avoid_reuse, blank, None
        w.last_processed = self.node.chain.height
        w.save()
        self.loaded[name] = w
        self._set_startup(name, load_on_startup)
        log.info("created wallet %r", name)
        return w

    def load(self, name: str, load_on_startup: bool | None = None) -> Wallet:
        path = self.path_of(name)
        if name in self.loaded:
            raise RpcError(RPC_WALLET_ALREADY_LOADED, f'Wallet "{name}" is already loaded.')
        if not (path / "wallet.json").exists():
            raise RpcError(
                RPC_WALLET_NOT_FOUND,
                f"Wallet file verification failed. Failed to load database path '{path}'. Path does not exist.",
            )
        w = Wallet(self, name, path)
        try:
            w.load()
        except (OSError, ValueError, KeyError) as e:
            raise RpcError(RPC_WALLET_ERROR, f"Wallet file verification failed. {path}/wallet.json: {e}") from None
        # Catch up with the blocks mined while it was not loaded, and the mempool.
        w.rescan(w.last_processed + 1)
        w.save()
        self.loaded[name] = w
        self._set_startup(name, load_on_startup)
        log.info("loaded wallet %r (%d transactions)", name, len(w.txs))
        return w

    def unload(self, name: str, load_on_startup: bool | None) -> None:
        w = self.loaded.pop(name, None)
        if w is None:
            raise RpcError(RPC_WALLET_NOT_FOUND, "Requested wallet does not exist or is not loaded")
        w.save()
        self._set_startup(name, load_on_startup)

    def for_request(self, uri_wallet: str | None) -> Wallet:
        """Core's GetWalletForJSONRPCRequest."""
        if uri_wallet is not None:
            w = self.loaded.get(uri_wallet)
            if w is None:
                raise RpcError(RPC_WALLET_NOT_FOUND, "Requested wallet does not exist or is not loaded")
            return w
        if len(self.loaded) == 1:
            return next(iter(self.loaded.values()))
        if not self.loaded:
            raise RpcError(
                RPC_WALLET_NOT_FOUND,
                "No wallet is loaded. Load a wallet using loadwallet or create a "
                "new one with createwallet. (Note: A default wallet is no longer automatically created)",
            )
        raise RpcError(
            RPC_WALLET_NOT_SPECIFIED,
            "Wallet file not specified (must request wallet RPC through /wallet/<filename> uri-path).",
        )

    # --- hooks from the node -------------------------------------------------------------------------------------

    def on_mempool_tx(self, tx: Tx, raw: bytes) -> None:
        for w in self.loaded.values():
            w.on_mempool_tx(tx, raw)

    def on_block(self, txs: list[Tx], height: int) -> None:
        for w in self.loaded.values():
            w.on_block(txs, height)

    def close(self) -> None:
        for w in self.loaded.values():
            w.save()


def _bool(v, default: bool) -> bool:
    if v is None:
        return default
    return bool(_want(v, "bool"))


def _opt_bool(v) -> bool | None:
    return None if v is None else bool(_want(v, "bool"))


def _parse_range(value) -> tuple[int, int]:
    """Core's ParseDescriptorRange."""
    if _typename(value) == "number":
        low, high = 0, _want_int(value)
    elif isinstance(value, list) and len(value) == 2 and all(_typename(x) == "number" for x in value):
        low, high = _want_int(value[0]), _want_int(value[1])
        if low > high:
            raise RpcError(RPC_INVALID_PARAMETER, "Range specified as [begin,end] must not have begin after end")
    else:
        raise RpcError(RPC_INVALID_PARAMETER, "Range must be specified as end or as [begin,end]")
    if low < 0:
        raise RpcError(RPC_INVALID_PARAMETER, "Range should be greater or equal than 0")
    if (high >> 31) != 0:
        raise RpcError(RPC_INVALID_PARAMETER, "End of range is too high")
    if high >= low + 1_000_000:
        raise RpcError(RPC_INVALID_PARAMETER, "Range is too large")
    return low, high


class WalletMethods:
    """The wallet RPCs. Each takes the request's wallet (from the URI) first, then the positional params."""

    def __init__(self, manager: WalletManager, decode_tx=None):
        self.manager = manager
        self.node = manager.node
        self.decode_tx = decode_tx  # rpc.Methods._tx_json, handed in by the RPC server (wallet.py never imports rpc.py)

    # --- wallet management ---------------------------------------------------------------------------------------

    def createwallet(
        self,
        uri_wallet,
        wallet_name=None,
        disable_private_keys=None,
        blank=None,
        passphrase=None,
        avoid_reuse=None,
        descriptors=None,
        load_on_startup=None,
        external_signer=None,
    ):
        name = _want(wallet_name, "string")
        if not _bool(descriptors, True):
            raise RpcError(
                RPC_WALLET_ERROR,
                "BDB wallet creation is deprecated and will be removed in a future "
                "release. In this release it can be re-enabled temporarily with the "
                "-deprecatedrpc=create_bdb setting.",
            )
        if _bool(external_signer, False):
            raise RpcError(
                RPC_WALLET_ERROR, "Compiled without external signing support (required for external signing)"
            )
        if not _bool(disable_private_keys, False):
            raise RpcError(
                RPC_WALLET_ERROR,
                "This regtest node only has watch-only wallets: createwallet needs "
                "disable_private_keys=true (it cannot hold private keys)",
            )
        if passphrase:
            raise RpcError(
                RPC_WALLET_ERROR,
                "Passphrase provided but private keys are disabled. A passphrase is "
                "only used to encrypt private keys, so cannot be used for wallets with private keys "
                "disabled.",
            )
        w = self.manager.create(name, _bool(avoid_reuse, False), _bool(blank, False), _opt_bool(load_on_startup))
        return {"name": w.name}

    def loadwallet(self, uri_wallet, filename=None, load_on_startup=None):
        w = self.manager.load(_want(filename, "string"), _opt_bool(load_on_startup))
        return {"name": w.name}

    def unloadwallet(self, uri_wallet, wallet_name=None, load_on_startup=None):
        if wallet_name is not None:
            _want(wallet_name, "string")
            if uri_wallet is not None and uri_wallet != wallet_name:
                raise RpcError(
                    RPC_INVALID_PARAMETER, "RPC endpoint wallet and wallet_name parameter specify different wallets"
                )
            name = wallet_name
        else:
            name = self.manager.for_request(uri_wallet).name
        self.manager.unload(name, _opt_bool(load_on_startup))
        return {}

    def listwallets(self, uri_wallet):
        return list(self.manager.loaded)

    def getwalletinfo(self, uri_wallet):
        w = self.manager.for_request(uri_wallet)
        chain = self.node.chain
        info = {
            "walletname": w.name,
            "walletversion": 169900,
            "format": "sqlite",
            "txcount": len(w.txs),
            "keypoolsize": sum(d.range_end + 1 - d.next_index for d in w.descriptors if d.active and not d.internal),
            "keypoolsize_hd_internal": sum(
                d.range_end + 1 - d.next_index for d in w.descriptors if d.active and d.internal
            ),
            "paytxfee": 0.0,
            "private_keys_enabled": False,
            "avoid_reuse": w.avoid_reuse,
            "scanning": False
            if w.scanning is None
            else {"duration": int(time.monotonic() - w.scanning["started"]), "progress": w.scanning["progress"]},
            "descriptors": True,
            "external_signer": False,
            "blank": w.blank,
            "lastprocessedblock": {
                "hash": hash_to_hex(chain.blocks[w.last_processed].hash),
                "height": w.last_processed,
            },
        }
        if w.birthtime is not None:
            info["birthtime"] = w.birthtime
        return info

    # --- descriptors ---------------------------------------------------------------------------------------------

    async def importdescriptors(self, uri_wallet, requests=None):
        """Adds the descriptors, then rescans from the lowest timestamp (as Core: the answer comes when the rescan is
        over; meanwhile getwalletinfo shows `scanning`, and another import is refused)."""
        w = self.manager.for_request(uri_wallet)
        _want(requests, "array")
        if w.scanning is not None:
            raise RpcError(RPC_WALLET_ERROR, "Wallet is currently rescanning. Abort existing rescan or wait.")
        # As Core: "now" is the tip's median time past, and the rescan starts from the lowest timestamp given, never
        # later than the tip's own time, less TIMESTAMP_WINDOW, whenever a request succeeded: the chain's clock
        # decides, not the wall clock (block times may run ahead of it when blocks are mined in a burst).
        chain = self.node.chain
        now = chain.median_time_past()
        results, lowest, imported = [], chain.tip.header.time, False
        for req in requests:
            try:
                _want(req, "object")
                ts = max(self._import_one(w, req, now), 1)
                lowest = min(lowest, ts)
                imported = True
                results.append({"success": True})
            except RpcError as e:
                results.append({"success": False, "error": {"code": e.code, "message": e.message}})
        if imported:
            start = rescan_start_height(chain.blocks, lowest)
            t0 = time.monotonic()
            w.save()  # the descriptors are the wallet's from now on, even if the node stops mid-rescan
            first, last = await w.rescan_blocks(start, self.node.rescan_delay)
            log.info(
                "wallet %r: rescanned from height %d in %.2f s (heights %d..%d)",
                w.name,
                start,
                time.monotonic() - t0,
                first,
                last,
            )
            w.save()
        return results

    def _import_one(self, w: Wallet, req: dict, now: int) -> int:
        if "desc" not in req:
            raise RpcError(RPC_INVALID_PARAMETER, "Descriptor not found.")
        text = _want(req["desc"], "string")
        active = _bool(req.get("active"), False)
        label = req.get("label")
        if label is not None:
            _want(label, "string")
        if "timestamp" not in req:
            raise RpcError(RPC_TYPE_ERROR, "Missing required timestamp field for key")
        ts_v = req["timestamp"]
        if _typename(ts_v) == "number":
            timestamp = _want_int(ts_v)
        elif ts_v == "now":
            timestamp = now
        else:
            raise RpcError(
                RPC_TYPE_ERROR, f'Expected number or "now" timestamp value for key. got type {_typename(ts_v)}'
            )
        if "#" not in text:
            raise RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Missing checksum")
        try:
            pd = ParsedDescriptor(text)  # checks the checksum with Core's wording
        except DescriptorError as e:
            raise RpcError(RPC_INVALID_ADDRESS_OR_KEY, str(e)) from None
        parsed = pd._desc
        if parsed is not None and any(k.is_private for k in parsed.keys):
            raise RpcError(RPC_WALLET_ERROR, "Cannot import private keys to a wallet with private keys disabled")
        if parsed is None:
            branches = [pd.text]
        elif parsed.num_branches == 1:
            branches = [str(parsed)]
        else:
            branches = [str(parsed.branch(i)) for i in range(parsed.num_branches)]
        internal = req.get("internal")
        if internal is not None:
            if len(branches) > 1:
                raise RpcError(
                    RPC_INVALID_ADDRESS_OR_KEY, "Cannot have multipath descriptor while also specifying 'internal'"
                )
            internal = bool(_want(internal, "bool"))
        ranged = pd.is_range
        range_start, range_end, next_index = 0, 0, 0
        if not ranged and "range" in req:
            raise RpcError(RPC_INVALID_PARAMETER, "Range should not be specified for an un-ranged descriptor")
        if ranged:
            if "range" in req:
                range_start, range_end = _parse_range(req["range"])
            next_index = range_start
            if "next_index" in req:
                next_index = _want_int(req["next_index"])
                if next_index < range_start or next_index > range_end:
                    raise RpcError(RPC_INVALID_PARAMETER, "next_index is out of range")
        if active and not ranged:
            raise RpcError(RPC_INVALID_PARAMETER, "Active descriptors must be ranged")
        if "range" in req and label is not None:
            raise RpcError(RPC_INVALID_PARAMETER, "Ranged descriptors should not have a label")
        if internal and label is not None:
            raise RpcError(RPC_INVALID_PARAMETER, "Internal addresses should not have a label")
        for n, b in enumerate(branches):
            desc = add_checksum(b)
            is_internal = bool(internal) if len(branches) == 1 else n == 1
            existing = next((d for d in w.descriptors if d.desc == desc), None)
            if existing is not None:
                # Core's UpdateWalletDescriptor: the new range must include the current one.
                if range_start > existing.range_start or range_end < existing.range_end:
                    raise RpcError(
                        RPC_INVALID_PARAMETER,
                        f"new range must include current range = [{existing.range_start},{existing.range_end}]",
                    )
                existing.range_end = range_end
                existing.next_index = max(existing.next_index, next_index)
                existing.timestamp = min(existing.timestamp, timestamp)
                d = existing
            else:
                d = WalletDescriptor(
                    desc, timestamp, active, is_internal, range_start, range_end, next_index, label or ""
                )
                w.descriptors.append(d)
            if active:
                for other in w.descriptors:
                    if (
                        other is not d
                        and other.active
                        and other.internal == d.internal
                        and _output_type(other) == _output_type(d)
                    ):
                        other.active = False
                d.active, d.internal = True, is_internal
            w._top_up(d)
            for spk, i in d.scripts.items():
                w.spks[spk] = (d, i)
        w.birthtime = timestamp if w.birthtime is None else min(w.birthtime, timestamp)
        return timestamp

    def listdescriptors(self, uri_wallet, private=None):
        w = self.manager.for_request(uri_wallet)
        if _bool(private, False):
            raise RpcError(RPC_WALLET_ERROR, "Can't get descriptor string.")
        out = []
        for d in sorted(w.descriptors, key=lambda d: d.desc):
            e = {"desc": d.desc, "timestamp": d.timestamp, "active": d.active}
            if d.active:
                e["internal"] = d.internal
            if d.is_range:
                e["range"] = [d.range_start, d.range_end]
                e["next"] = d.next_index
                e["next_index"] = d.next_index
            out.append(e)
        return {"wallet_name": w.name, "descriptors": out}

    # --- coins and balances --------------------------------------------------------------------------------------

    def listunspent(
        self, uri_wallet, minconf=None, maxconf=None, addresses=None, include_unsafe=None, query_options=None
    ):
        w = self.manager.for_request(uri_wallet)
        minconf = 1 if minconf is None else _want_int(minconf)
        maxconf = 9_999_999 if maxconf is None else _want_int(maxconf)
        wanted: set[bytes] | None = None
        if addresses is not None:
            _want(addresses, "array")
            wanted = set()
            for a in addresses:
                _want(a, "string")
                try:
                    spk = address_to_script(a)
                except AddressError:
                    raise RpcError(RPC_INVALID_ADDRESS_OR_KEY, f"Invalid Bitcoin address: {a}") from None
                if spk in wanted:
                    raise RpcError(RPC_INVALID_PARAMETER, f"Invalid parameter, duplicated address: {a}")
                wanted.add(spk)
        unsafe_ok = _bool(include_unsafe, True)
        out = []
        for wtx, n, o, depth in w.coins():
            if depth < 0 or w.immature(wtx, depth) or (depth == 0 and not w.in_mempool(wtx)):
                continue
            if not minconf <= depth <= maxconf:
                continue
            if wanted is not None and o.script_pubkey not in wanted:
                continue
            safe = w.is_trusted(wtx, depth)
            if not safe and not unsafe_ok:
                continue
            d, i = w.spks[o.script_pubkey]
            e = {"txid": hash_to_hex(wtx.txid), "vout": n}
            addr = address_of(o.script_pubkey)
            if addr:
                e["address"] = addr
            if d.label:
                e["label"] = d.label
            e.update({"scriptPubKey": o.script_pubkey.hex(), "amount": btc(o.value), "confirmations": depth})
            if depth == 0:
                e["ancestorcount"] = 1 + len(self.node.mempool.ancestors(self.node.mempool.entries[wtx.txid].parents))
            e.update(
                {"spendable": True, "solvable": True, "desc": d.derived_desc(i), "parent_descs": [d.desc], "safe": safe}
            )
            out.append(e)
        return out

    def getbalances(self, uri_wallet):
        w = self.manager.for_request(uri_wallet)
        trusted = pending = immature = 0
        for wtx in w.txs.values():
            depth = w.depth(wtx)
            if w.immature(wtx, depth):
                immature += sum(
                    o.value
                    for n, o in enumerate(wtx.tx.vout)
                    if o.script_pubkey in w.spks and not w.is_spent((wtx.txid, n))
                )
                continue
            avail = sum(
                o.value
                for n, o in enumerate(wtx.tx.vout)
                if o.script_pubkey in w.spks and not w.is_spent((wtx.txid, n))
            )
            is_trusted = w.is_trusted(wtx, depth)
            if is_trusted and depth >= 0:
                trusted += avail
            if not is_trusted and depth == 0 and w.in_mempool(wtx):
                pending += avail
        chain = self.node.chain
        return {
            "mine": {"trusted": btc(trusted), "untrusted_pending": btc(pending), "immature": btc(immature)},
            "lastprocessedblock": {
                "hash": hash_to_hex(chain.blocks[w.last_processed].hash),
                "height": w.last_processed,
            },
        }

    # --- transactions --------------------------------------------------------------------------------------------

    def _tx_fields(self, w: Wallet, wtx: WalletTx, depth: int) -> dict:
        """Core's WalletTxToJSON."""
        chain, mempool = self.node.chain, self.node.mempool
        e = {"confirmations": depth}
        if wtx.tx.is_coinbase:
            e["generated"] = True
        if depth > 0:
            loc = chain.get_tx(wtx.txid)
            b = chain.blocks[loc.height]
            e.update(
                {
                    "blockhash": hash_to_hex(b.hash),
                    "blockheight": loc.height,
                    "blockindex": loc.pos,
                    "blocktime": b.header.time,
                }
            )
        elif w.is_trusted(wtx, depth):
            e["trusted"] = True
        else:
            e["trusted"] = False
        e["txid"] = hash_to_hex(wtx.txid)
        e["wtxid"] = wtx.tx.wtxid
        conflicts = []
        for other in w.txs.values():
            if other.txid != wtx.txid and any(i.outpoint in {x.outpoint for x in wtx.tx.vin} for i in other.tx.vin):
                conflicts.append(hash_to_hex(other.txid))
        e["walletconflicts"] = conflicts
        e["mempoolconflicts"] = sorted(
            {
                hash_to_hex(t)
                for i in wtx.tx.vin
                if (t := mempool.spenders.get(i.outpoint)) is not None and t != wtx.txid
            }
        )
        e["time"] = wtx.time_received if depth <= 0 else min(wtx.time_received, e["blocktime"])
        e["timereceived"] = wtx.time_received
        if depth > 0:
            e["bip125-replaceable"] = "no"
        elif wtx.txid in mempool.entries:
            fam = {wtx.txid} | mempool.ancestors(mempool.entries[wtx.txid].parents)
            signals = any(i.sequence <= 0xFFFFFFFD for t in fam for i in mempool.entries[t].tx.vin)
            e["bip125-replaceable"] = "yes" if signals else "no"
        else:
            e["bip125-replaceable"] = "unknown"
        return e

    def _entries(self, w: Wallet, wtx: WalletTx, include_change: bool) -> list[dict]:
        """Core's ListTransactions for one wallet transaction: 'send' entries then 'receive' ones."""
        depth = w.depth(wtx)
        debit = w.debit(wtx)
        fee = debit - sum(o.value for o in wtx.tx.vout) if debit > 0 else 0
        sent, received = [], []
        for n, o in enumerate(wtx.tx.vout):
            mine = o.script_pubkey in w.spks
            if debit > 0:
                # Core's OutputIsChange: an output of ours not in the address book (labelled descriptors are).
                if not include_change and mine and not w.spks[o.script_pubkey][0].label:
                    continue
            elif not mine:
                continue
            if debit > 0 or include_change:
                sent.append((n, o))
            if mine:
                received.append((n, o))
        common = self._tx_fields(w, wtx, depth)
        out = []
        for n, o in sent:
            e = {}
            addr = address_of(o.script_pubkey)
            if addr:
                e["address"] = addr
            e.update({"category": "send", "amount": btc(-o.value), "vout": n, "fee": btc(-fee)})
            e.update(common)
            e["abandoned"] = False
            out.append(e)
        for n, o in received:
            d, _ = w.spks[o.script_pubkey]
            e = {}
            addr = address_of(o.script_pubkey)
            if addr:
                e["address"] = addr
            e["parent_descs"] = [d.desc]
            if wtx.tx.is_coinbase:
                cat = "orphan" if depth < 1 else ("immature" if w.immature(wtx, depth) else "generate")
            else:
                cat = "receive"
            e.update({"category": cat, "amount": btc(o.value)})
            if d.label:
                e["label"] = d.label
            e["vout"] = n
            e.update(common)
            out.append(e)
        return out

    def listtransactions(self, uri_wallet, label=None, count=None, skip=None, include_watchonly=None):
        w = self.manager.for_request(uri_wallet)
        if label is not None and _want(label, "string") != "*":
            raise (
                RpcError(RPC_INVALID_PARAMETER, 'Label argument must be a valid label name or "*".')
                if label == ""
                else RpcError(
                    RPC_INVALID_PARAMETER,
                    f"Label '{label}' is not used by this node's wallets (labels are not supported here)",
                )
            )
        count = 10 if count is None else _want_int(count)
        skip = 0 if skip is None else _want_int(skip)
        if count < 0:
            raise RpcError(RPC_INVALID_PARAMETER, "Negative count")
        if skip < 0:
            raise RpcError(RPC_INVALID_PARAMETER, "Negative from")
        entries = []
        for wtx in sorted(w.txs.values(), key=lambda t: t.order):
            entries.extend(self._entries(w, wtx, include_change=False))
        entries = entries[::-1][skip : skip + count][::-1]  # the newest count after skip, oldest first
        return entries

    def listsinceblock(
        self,
        uri_wallet,
        blockhash=None,
        target_confirmations=None,
        include_watchonly=None,
        include_removed=None,
        include_change=None,
        label=None,
    ):
        w = self.manager.for_request(uri_wallet)
        chain = self.node.chain
        target = 1 if target_confirmations is None else _want_int(target_confirmations)
        if target < 1:
            raise RpcError(RPC_INVALID_PARAMETER, "Invalid parameter")
        depth_limit = -1
        if blockhash not in (None, ""):
            hb = _hash_param(blockhash, "blockhash")
            height = chain.by_hash.get(hb)
            if height is None:
                raise RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Block not found")
            depth_limit = chain.height + 1 - height
        change = _bool(include_change, False)
        txs = []
        for wtx in sorted(w.txs.values(), key=lambda t: t.order):
            if depth_limit == -1 or w.depth(wtx) < depth_limit:
                txs.extend(self._entries(w, wtx, include_change=change))
        last = chain.blocks[max(0, chain.height + 1 - target)].hash
        out = {"transactions": txs}
        if _bool(include_removed, True):
            out["removed"] = []  # this node has no reorgs
        out["lastblock"] = hash_to_hex(last)
        return out

    def gettransaction(self, uri_wallet, txid=None, include_watchonly=None, verbose=None):
        w = self.manager.for_request(uri_wallet)
        tb = _hash_param(txid, "txid")
        wtx = w.txs.get(tb)
        if wtx is None:
            raise RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Invalid or non-wallet transaction id")
        debit, credit = w.debit(wtx), w.credit(wtx)
        fee = sum(o.value for o in wtx.tx.vout) - debit if debit > 0 else 0  # negative, as Core shows it
        depth = w.depth(wtx)
        out = {"amount": btc(credit - debit - fee)}
        if debit > 0:
            out["fee"] = btc(fee)
        out.update(self._tx_fields(w, wtx, depth))
        out["details"] = self._entries(w, wtx, include_change=False)
        for d in out["details"]:
            for k in list(d):
                if k not in ("address", "category", "amount", "label", "vout", "fee", "abandoned", "parent_descs"):
                    del d[k]
        out["hex"] = wtx.raw.hex()
        if _bool(verbose, False):
            out["decoded"] = self.decode_tx(wtx.tx)
        return out


def _output_type(d: WalletDescriptor) -> str:
    return d.desc.split("(", 1)[0]
