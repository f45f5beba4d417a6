"""A Bitcoin Core JSON-RPC subset over HTTP/1.1 with basic auth (the cookie), on loopback.

Errors use Core's codes and messages. JSON-RPC 1.0-style requests get Core's HTTP statuses (500 for errors, 404 for
an unknown method, 400 for a bad request); "jsonrpc": "2.0" requests always get 200, as in Core 28+.
"""

from __future__ import annotations

import asyncio
import base64
import hmac
import json
import logging
import time
import urllib.parse

from .chain import BlockRejected
from .mempool import DEFAULT_MAX_FEE_RATE_PER_KVB, MIN_RELAY_FEE_PER_KVB, TxReject
from .primitives import (
    COIN,
    DecodeError,
    bits_to_target,
    btc,
    difficulty,
    hash_to_hex,
    hex_to_hash,
    parse_tx_hex,
)
from .rpcerrors import (
    RPC_DESERIALIZATION_ERROR,
    RPC_INVALID_ADDRESS_OR_KEY,
    RPC_INVALID_PARAMETER,
    RPC_INVALID_REQUEST,
    RPC_METHOD_NOT_FOUND,
    RPC_MISC_ERROR,
    RPC_PARSE_ERROR,
    RPC_TYPE_ERROR,
    RPC_VERIFY_ALREADY_IN_CHAIN,
    RPC_VERIFY_ERROR,
    RPC_VERIFY_REJECTED,
    RpcError,
    _hash_param,
    _want,
    _want_int,
)
from .script import AddressError, DescriptorError, ParsedDescriptor, address_to_script, describe_output, to_asm

log = logging.getLogger("regtest.rpc")

MAX_BODY = 64 * 1024 * 1024


def _amount_to_sats(v, name: str = "amount") -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        raise RpcError(RPC_TYPE_ERROR, "Amount is not a number or string")
    try:
        sats = round(float(v) * COIN)
    except ValueError:
        raise RpcError(RPC_TYPE_ERROR, "Invalid amount") from None
    if sats < 0:
        raise RpcError(RPC_TYPE_ERROR, "Amount out of range")
    return sats


class Methods:
    """The RPC methods. Each takes positional params (named params are mapped by the dispatcher)."""

    PARAM_NAMES = {
        "getblockhash": ["height"],
        "getblockheader": ["blockhash", "verbose"],
        "getblock": ["blockhash", "verbosity"],
        "getrawtransaction": ["txid", "verbose", "blockhash"],
        "sendrawtransaction": ["hexstring", "maxfeerate", "maxburnamount"],
        "testmempoolaccept": ["rawtxs", "maxfeerate"],
        "estimatesmartfee": ["conf_target", "estimate_mode"],
        "scantxoutset": ["action", "scanobjects"],
        "generatetoaddress": ["nblocks", "address", "maxtries"],
        "generatetodescriptor": ["num_blocks", "descriptor", "maxtries"],
        "generateblock": ["output", "transactions", "submit"],
        "getmempoolentry": ["txid"],
        "setmocktime": ["timestamp"],
        "getrawmempool": ["verbose", "mempool_sequence"],
        "decoderawtransaction": ["hexstring", "iswitness"],
    }

    def __init__(self, node, stop_event: asyncio.Event):
        self.node = node
        self.chain = node.chain
        self.mempool = node.mempool
        self.stop_event = stop_event
        self.started = time.time()

    # --- chain ---------------------------------------------------------------------------------------------------

    def getblockchaininfo(self):
        tip = self.chain.tip
        return {
            "chain": "regtest",
            "blocks": self.chain.height,
            "headers": self.chain.height,
            "bestblockhash": hash_to_hex(tip.hash),
            "bits": f"{tip.header.bits:08x}",
            "target": f"{bits_to_target(tip.header.bits):064x}",
            "difficulty": difficulty(tip.header.bits),
            "time": tip.header.time,
            "mediantime": self.chain.median_time_past(),
            "verificationprogress": 1,
            "initialblockdownload": False,
            "chainwork": f"{tip.chainwork:064x}",
            "size_on_disk": sum(b.size for b in self.chain.blocks),
            "pruned": False,
            "warnings": [],
        }

    def getblockcount(self):
        return self.chain.height

    def getbestblockhash(self):
        return hash_to_hex(self.chain.tip.hash)

    def getdifficulty(self):
        return difficulty(self.chain.tip.header.bits)

    def getblockhash(self, height=None):
        h = _want_int(height)
        if h < 0 or h > self.chain.height:
            raise RpcError(RPC_INVALID_PARAMETER, "Block height out of range")
        return hash_to_hex(self.chain.blocks[h].hash)

    def _block_meta(self, blockhash):
        hb = _hash_param(blockhash, "blockhash")
        height = self.chain.by_hash.get(hb)
        if height is None:
            raise RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Block not found")
        return self.chain.blocks[height]

    def _header_json(self, m) -> dict:
        hdr = m.header
        out = {
            "hash": hash_to_hex(m.hash),
            "confirmations": self.chain.height - m.height + 1,
            "height": m.height,
            "version": hdr.version,
            "versionHex": f"{hdr.version & 0xFFFFFFFF:08x}",
            "merkleroot": hash_to_hex(hdr.merkle_root),
            "time": hdr.time,
            "mediantime": self.chain.median_time_past(m.height),
            "nonce": hdr.nonce,
            "bits": f"{hdr.bits:08x}",
            "difficulty": difficulty(hdr.bits),
            "chainwork": f"{m.chainwork:064x}",
            "nTx": len(m.txids),
        }
        if m.height > 0:
            out["previousblockhash"] = hash_to_hex(hdr.prev_hash)
        if m.height < self.chain.height:
            out["nextblockhash"] = hash_to_hex(self.chain.blocks[m.height + 1].hash)
        return out

    def getblockheader(self, blockhash=None, verbose=True):
        m = self._block_meta(blockhash)
        if not _want(verbose, "bool"):
            return m.header.serialize().hex()
        return self._header_json(m)

    def getblock(self, blockhash=None, verbosity=1):
        m = self._block_meta(blockhash)
        if isinstance(verbosity, bool):
            verbosity = 1 if verbosity else 0
        verbosity = _want_int(verbosity)
        raw = self.chain.raw_block(m.height)
        if verbosity <= 0:
            return raw.hex()
        out = self._header_json(m)
        out.update({"strippedsize": m.stripped_size, "size": m.size, "weight": m.weight})
        if verbosity == 1:
            out["tx"] = [hash_to_hex(t) for t in m.txids]
        else:
            from .primitives import parse_block

            block = parse_block(raw)
            out["tx"] = [self._tx_json(t, with_fee=True, height=m.height) for t in block.txs]
        keys = [
            "hash",
            "confirmations",
            "height",
            "version",
            "versionHex",
            "merkleroot",
            "time",
            "mediantime",
            "nonce",
            "bits",
            "difficulty",
            "chainwork",
            "nTx",
            "previousblockhash",
            "nextblockhash",
            "strippedsize",
            "size",
            "weight",
            "tx",
        ]
        return {k: out[k] for k in keys if k in out}

    # --- transactions --------------------------------------------------------------------------------------------

    def _tx_json(self, tx, with_fee: bool = False, height: int | None = None) -> dict:
        vin = []
        for i in tx.vin:
            if tx.is_coinbase:
                d = {"coinbase": i.script_sig.hex()}
            else:
                d = {
                    "txid": hash_to_hex(i.prev_txid),
                    "vout": i.prev_vout,
                    "scriptSig": {"asm": to_asm(i.script_sig), "hex": i.script_sig.hex()},
                }
            if i.witness:
                d["txinwitness"] = [w.hex() for w in i.witness]
            d["sequence"] = i.sequence
            vin.append(d)
        out = {
            "txid": tx.txid,
            "hash": tx.wtxid,
            "version": tx.version,
            "size": tx.size,
            "vsize": tx.vsize,
            "weight": tx.weight,
            "locktime": tx.locktime,
            "vin": vin,
            "vout": [
                {"value": btc(o.value), "n": n, "scriptPubKey": describe_output(o.script_pubkey)}
                for n, o in enumerate(tx.vout)
            ],
        }
        if with_fee and not tx.is_coinbase:
            coins = self.chain.spent_coins.get(tx.txid_bytes)
            if coins is not None:
                out["fee"] = btc(sum(c.value for c in coins) - sum(o.value for o in tx.vout))
        return out

    def decoderawtransaction(self, hexstring=None, iswitness=None):
        try:
            tx = parse_tx_hex(_want(hexstring, "string"))
        except DecodeError:
            raise RpcError(RPC_DESERIALIZATION_ERROR, "TX decode failed") from None
        return self._tx_json(tx)

    def getrawtransaction(self, txid=None, verbose=False, blockhash=None):
        tb = _hash_param(txid, "parameter 1")
        if isinstance(verbose, bool):
            verbosity = int(verbose)
        elif verbose is None:
            verbosity = 0
        else:
            verbosity = _want_int(verbose)
        in_block = None
        if blockhash is not None:
            in_block = self._block_meta(blockhash)
        loc = self.chain.get_tx(tb)
        if loc is not None and (in_block is None or in_block.height == loc.height):
            raw, height = loc.raw, loc.height
        elif tb in self.mempool.entries and in_block is None:
            raw, height = self.mempool.entries[tb].raw, None
        else:
            if in_block is not None:
                raise RpcError(
                    RPC_INVALID_ADDRESS_OR_KEY,
                    "No such transaction found in the provided block. Use gettransaction for wallet transactions.",
                )
            raise RpcError(
                RPC_INVALID_ADDRESS_OR_KEY,
                "No such mempool or blockchain transaction. Use gettransaction for wallet transactions.",
            )
        if verbosity == 0:
            return raw.hex()
        tx = parse_tx_hex(raw.hex())
        out = {}
        if in_block is not None:
            out["in_active_chain"] = True
        out.update(self._tx_json(tx, with_fee=verbosity >= 2))
        out["hex"] = raw.hex()
        if height is not None:
            m = self.chain.blocks[height]
            out.update(
                {
                    "blockhash": hash_to_hex(m.hash),
                    "confirmations": self.chain.height - height + 1,
                    "time": m.header.time,
                    "blocktime": m.header.time,
                }
            )
        return out

    def _decode(self, hexstring) -> tuple:
        _want(hexstring, "string")
        try:
            tx = parse_tx_hex(hexstring)
        except DecodeError:
            raise RpcError(
                RPC_DESERIALIZATION_ERROR, "TX decode failed. Make sure the tx has at least one input."
            ) from None
        return tx, bytes.fromhex(hexstring)

    @staticmethod
    def _max_fee_rate(maxfeerate) -> int:
        if maxfeerate is None:
            return DEFAULT_MAX_FEE_RATE_PER_KVB
        return _amount_to_sats(maxfeerate)

    def sendrawtransaction(self, hexstring=None, maxfeerate=None, maxburnamount=None):
        tx, raw = self._decode(hexstring)
        txid = tx.txid_bytes
        if txid in self.mempool.entries:
            return tx.txid  # Core: already in our mempool is success
        if any((txid, n) in self.chain.utxos for n in range(len(tx.vout))):
            raise RpcError(RPC_VERIFY_ALREADY_IN_CHAIN, "Transaction outputs already in utxo set")
        try:
            self.node.submit_tx(tx, raw, self._max_fee_rate(maxfeerate) or None)
        except TxReject as e:
            raise _broadcast_error(e) from None
        return tx.txid

    def testmempoolaccept(self, rawtxs=None, maxfeerate=None):
        _want(rawtxs, "array")
        if not 1 <= len(rawtxs) <= 25:
            raise RpcError(RPC_INVALID_PARAMETER, "Array must contain between 1 and 25 transactions.")
        decoded = [self._decode(h) for h in rawtxs]
        max_rate = self._max_fee_rate(maxfeerate) or None
        overlay: dict = {}
        results = []
        for tx, raw in decoded:
            r = {"txid": tx.txid, "wtxid": tx.wtxid}
            try:
                # One transaction is tested as ATMP does (replacements allowed); several as a package, where
                # Core 28 does not allow replacing mempool transactions.
                e = self.mempool.check(
                    tx, raw, max_fee_rate=max_rate, overlay=overlay, allow_replacement=len(decoded) == 1
                )
                overlay[e.txid] = e
                r.update(
                    {
                        "allowed": True,
                        "vsize": e.vsize,
                        "fees": {
                            "base": btc(e.fee),
                            "effective-feerate": btc(e.fee * 1000 // e.vsize),
                            "effective-includes": [e.tx.wtxid],
                        },
                    }
                )
            except TxReject as e:
                r["allowed"] = False
                r["reject-reason"] = "missing-inputs" if e.kind == "missing-inputs" else e.reason
                if e.debug and e.kind not in ("missing-inputs",):
                    r["reject-details"] = str(e)
            results.append(r)
        return results

    def getmempoolinfo(self):
        entries = self.mempool.entries.values()
        return {
            "loaded": True,
            "size": len(self.mempool.entries),
            "bytes": sum(e.vsize for e in entries),
            "usage": sum(len(e.raw) * 4 for e in entries),
            "total_fee": btc(sum(e.fee for e in entries)),
            "maxmempool": 300_000_000,
            "mempoolminfee": btc(MIN_RELAY_FEE_PER_KVB),
            "minrelaytxfee": btc(MIN_RELAY_FEE_PER_KVB),
            "incrementalrelayfee": btc(MIN_RELAY_FEE_PER_KVB),
            "unbroadcastcount": 0,
            "fullrbf": self.mempool.full_rbf,
        }

    def getrawmempool(self, verbose=False, mempool_sequence=False):
        if verbose:
            return {hash_to_hex(t): self._entry_json(e) for t, e in self.mempool.entries.items()}
        return [hash_to_hex(t) for t in self.mempool.entries]

    def _entry_json(self, e) -> dict:
        """Core's mempool entry, with the ancestor and descendant package totals (each counting the entry itself)."""
        ancestors = self._related(e, "parents")
        descendants = self._related(e, "children")
        return {
            "vsize": e.vsize,
            "weight": e.weight,
            "time": e.time,
            "height": self.chain.height,
            "descendantcount": len(descendants) + 1,
            "descendantsize": e.vsize + sum(d.vsize for d in descendants),
            "ancestorcount": len(ancestors) + 1,
            "ancestorsize": e.vsize + sum(a.vsize for a in ancestors),
            "fees": {
                "base": btc(e.fee),
                "modified": btc(e.fee),
                "ancestor": btc(e.fee + sum(a.fee for a in ancestors)),
                "descendant": btc(e.fee + sum(d.fee for d in descendants)),
            },
            "depends": [hash_to_hex(p) for p in e.parents],
            "spentby": [hash_to_hex(t) for t in self._children(e)],
            "wtxid": e.tx.wtxid,
            "bip125-replaceable": any(i.sequence < 0xFFFFFFFE for i in e.tx.vin),
        }

    def _children(self, e) -> list[bytes]:
        return [t for t, other in self.mempool.entries.items() if e.tx.txid_bytes in other.parents]

    def _related(self, e, direction: str) -> list:
        """Every in-mempool ancestor (`parents`) or descendant (`children`) of `e`, each once."""
        seen: dict[bytes, object] = {}
        todo = list(e.parents) if direction == "parents" else self._children(e)
        while todo:
            txid = todo.pop()
            other = self.mempool.entries.get(txid)
            if other is None or txid in seen:
                continue
            seen[txid] = other
            todo.extend(other.parents if direction == "parents" else self._children(other))
        return list(seen.values())

    def setmocktime(self, timestamp=None):
        """Block times come from `timestamp` (0: the system clock again), as Core's regtest-only setmocktime."""
        t = _want_int(timestamp)
        if t < 0:
            raise RpcError(RPC_INVALID_PARAMETER, f"Mocktime cannot be negative: {t}.")
        self.chain.mocktime = t
        return None

    def getmempoolentry(self, txid=None):
        e = self.mempool.entries.get(_hash_param(txid, "txid"))
        if e is None:
            raise RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Transaction not in mempool")
        return self._entry_json(e)

    def estimatesmartfee(self, conf_target=None, estimate_mode="economical"):
        target = _want_int(conf_target)
        if target < 1 or target > 1008:
            raise RpcError(RPC_INVALID_PARAMETER, "Invalid conf_target, must be between 1 and 1008")
        return {"feerate": btc(self.mempool.fee_rate_estimate(target)), "blocks": max(target, 2)}

    # --- scantxoutset --------------------------------------------------------------------------------------------

    def scantxoutset(self, action=None, scanobjects=None):
        _want(action, "string")
        if action == "abort":
            return False
        if action == "status":
            return None
        if action != "start":
            raise RpcError(RPC_INVALID_PARAMETER, "Invalid action 'unknown'" if False else f"Invalid action '{action}'")
        if scanobjects is None:
            raise RpcError(RPC_MISC_ERROR, "scanobjects argument is required for the start action")
        _want(scanobjects, "array")
        wanted: dict[bytes, str] = {}
        for obj in scanobjects:
            if isinstance(obj, str):
                text, rng = obj, None
            elif isinstance(obj, dict):
                text, rng = obj.get("desc"), obj.get("range")
            else:
                raise RpcError(RPC_INVALID_PARAMETER, "Scan object needs to be either a string or an object")
            try:
                d = ParsedDescriptor(text)
            except DescriptorError as e:
                raise RpcError(RPC_INVALID_ADDRESS_OR_KEY, str(e)) from None
            start, end = 0, 1000
            if rng is not None:
                if isinstance(rng, list) and len(rng) == 2:
                    start, end = _want_int(rng[0]), _want_int(rng[1])
                else:
                    end = _want_int(rng)
                if start < 0 or end < start or end - start > 1_000_000:
                    raise RpcError(RPC_INVALID_PARAMETER, "Range should be greater or equal than 0")
            for spk, desc in d.scripts(start, end if d.is_range else 0):
                wanted.setdefault(spk, desc)
        unspents, total = [], 0
        for (txid, n), c in self.chain.utxos.items():
            if c.script_pubkey in wanted:
                unspents.append(
                    {
                        "txid": hash_to_hex(txid),
                        "vout": n,
                        "scriptPubKey": c.script_pubkey.hex(),
                        "desc": wanted[c.script_pubkey],
                        "amount": btc(c.value),
                        "coinbase": c.coinbase,
                        "height": c.height,
                        "blockhash": hash_to_hex(self.chain.blocks[c.height].hash),
                        "confirmations": self.chain.height - c.height + 1,
                    }
                )
                total += c.value
        return {
            "success": True,
            "txouts": len(self.chain.utxos),
            "height": self.chain.height,
            "bestblock": hash_to_hex(self.chain.tip.hash),
            "unspents": unspents,
            "total_amount": btc(total),
        }

    # --- mining --------------------------------------------------------------------------------------------------

    def _generate(self, n, spk: bytes):
        n = _want_int(n)
        if n < 0:
            raise RpcError(RPC_INVALID_PARAMETER, "nblocks must be non-negative")
        try:
            return self.node.generate(n, spk)
        except BlockRejected as e:
            raise RpcError(RPC_MISC_ERROR, f"ProcessNewBlock, block not accepted: {e}") from None

    def generatetoaddress(self, nblocks=None, address=None, maxtries=None):
        _want_int(nblocks)
        _want(address, "string")
        try:
            spk = address_to_script(address)
        except AddressError:
            raise RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Error: Invalid address") from None
        return self._generate(nblocks, spk)

    def _descriptor_script(self, text) -> bytes:
        try:
            d = ParsedDescriptor(text)
        except DescriptorError as e:
            raise RpcError(RPC_INVALID_ADDRESS_OR_KEY, str(e)) from None
        if d.is_range:
            raise RpcError(
                RPC_INVALID_PARAMETER, "Ranged descriptor not accepted. Maybe pass through deriveaddresses first?"
            )
        return d.scripts()[0][0]

    def generatetodescriptor(self, num_blocks=None, descriptor=None, maxtries=None):
        _want_int(num_blocks)
        _want(descriptor, "string")
        return self._generate(num_blocks, self._descriptor_script(descriptor))

    def generateblock(self, output=None, transactions=None, submit=True):
        _want(output, "string")
        _want(transactions, "array")
        try:
            spk = address_to_script(output)
        except AddressError:
            try:
                spk = self._descriptor_script(output)
            except RpcError:
                raise RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Error: Invalid address or descriptor") from None
        txs = []
        for item in transactions:
            _want(item, "string")
            if len(item) == 64 and all(ch in "0123456789abcdefABCDEF" for ch in item):
                e = self.mempool.entries.get(hex_to_hash(item))
                if e is None:
                    raise RpcError(RPC_INVALID_ADDRESS_OR_KEY, f"Transaction {item} not in mempool.")
                txs.append(e.tx)
            else:
                try:
                    txs.append(parse_tx_hex(item))
                except DecodeError:
                    raise RpcError(
                        RPC_DESERIALIZATION_ERROR,
                        f"Transaction decode failed for {item}. Make sure the tx has at least one input.",
                    ) from None
        try:
            block = self.node.mine(spk, txs, submit=bool(submit))
        except BlockRejected as e:
            raise RpcError(RPC_VERIFY_ERROR, f"TestBlockValidity failed: {e}") from None
        if submit:
            self.node.changed()
            return {"hash": block.header.hash}
        return {"hash": block.header.hash, "hex": block.serialize().hex()}

    # --- control -------------------------------------------------------------------------------------------------

    def uptime(self):
        return int(time.time() - self.started)

    def stop(self):
        asyncio.get_running_loop().call_later(0.05, self.stop_event.set)
        return "Bitcoin Core stopping"

    def help(self, command=None):
        return "\n".join(
            sorted(
                m
                for m in dir(self)
                if not m.startswith("_") and callable(getattr(self, m)) and m not in ("PARAM_NAMES",)
            )
        )


def _broadcast_error(e: TxReject) -> RpcError:
    """Core's BroadcastTransaction -> JSONRPCTransactionError mapping."""
    if e.kind == "missing-inputs":
        return RpcError(RPC_VERIFY_ERROR, str(e))
    if e.kind == "max-fee":
        return RpcError(RPC_VERIFY_REJECTED, "Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)")
    if e.kind == "already-known":
        return RpcError(RPC_VERIFY_ALREADY_IN_CHAIN, "Transaction outputs already in utxo set")
    return RpcError(RPC_VERIFY_REJECTED, str(e))


class RpcServer:
    def __init__(self, node, user: str, password: str, stop_event: asyncio.Event):
        self.methods = Methods(node, stop_event)
        self.wallet_methods = None
        if getattr(node, "wallets", None) is not None:
            from .wallet import WalletMethods

            self.wallet_methods = WalletMethods(node.wallets, decode_tx=self.methods._tx_json)
        self.expected_auth = base64.b64encode(f"{user}:{password}".encode()).decode()
        self.server: asyncio.base_events.Server | None = None
        self.port = 0
        self.writers: set[asyncio.StreamWriter] = set()

    async def start(self, host: str, port: int) -> None:
        self.server = await asyncio.start_server(self._client, host, port, limit=MAX_BODY)
        self.port = self.server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self.server:
            self.server.close()
        for w in list(self.writers):
            w.close()
        if self.server:
            try:
                await asyncio.wait_for(self.server.wait_closed(), 2)
            except TimeoutError:
                pass

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.writers.add(writer)
        try:
            while True:
                request_line = await reader.readline()
                if not request_line:
                    break
                headers = {}
                while True:
                    line = await reader.readline()
                    if line in (b"\r\n", b"\n", b""):
                        break
                    k, _, v = line.decode("latin-1").partition(":")
                    headers[k.strip().lower()] = v.strip()
                parts = request_line.decode("latin-1").split()
                if len(parts) != 3:
                    await self._send(writer, 400, b"", close=True)
                    break
                method, path, version = parts
                try:
                    length = int(headers.get("content-length", "0"))
                except ValueError:
                    length = -1
                if length < 0 or length > MAX_BODY:
                    await self._send(writer, 400, b"", close=True)
                    break
                body = await reader.readexactly(length) if length else b""
                keep = version == "HTTP/1.1" and headers.get("connection", "").lower() != "close"
                auth = headers.get("authorization", "")
                if not (auth.startswith("Basic ") and hmac.compare_digest(auth[6:].strip(), self.expected_auth)):
                    await asyncio.sleep(0.05)  # Core waits 250 ms; a short pause keeps brute force pointless here
                    await self._send(writer, 401, b"", keep, extra={"WWW-Authenticate": 'Basic realm="jsonrpc"'})
                elif method != "POST":
                    await self._send(writer, 405, b"JSONRPC server handles only POST requests", keep)
                elif (uri := self._uri_wallet(path)) is False:
                    await self._send(writer, 404, b"", keep)  # Core without wallet support has no /wallet/ handler
                else:
                    status, payload = await self._handle_body(body, uri)
                    await self._send(writer, status, payload, keep)
                if not keep:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError, ValueError):
            pass
        except Exception:
            log.exception("rpc client handler failed")
        finally:
            self.writers.discard(writer)
            writer.close()

    async def _send(
        self, writer, status: int, body: bytes, keep: bool = False, close: bool = False, extra: dict | None = None
    ) -> None:
        reason = {
            200: "OK",
            400: "Bad Request",
            401: "Unauthorized",
            404: "Not Found",
            405: "Method Not Allowed",
            500: "Internal Server Error",
        }.get(status, "OK")
        head = [
            f"HTTP/1.1 {status} {reason}",
            "Content-Type: application/json",
            f"Content-Length: {len(body)}",
            f"Connection: {'keep-alive' if keep and not close else 'close'}",
        ]
        head += [f"{k}: {v}" for k, v in (extra or {}).items()]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        await writer.drain()

    def _uri_wallet(self, path: str):
        """The wallet named by a `/wallet/<name>` path (None for any other path); False when the node has no
        wallet support."""
        if not path.startswith("/wallet/"):
            return None
        if self.wallet_methods is None:
            return False
        return urllib.parse.unquote(path[len("/wallet/") :])

    async def _handle_body(self, body: bytes, uri_wallet: str | None = None) -> tuple[int, bytes]:
        try:
            req = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            return 500, _dump(
                {"result": None, "error": {"code": RPC_PARSE_ERROR, "message": "Parse error"}, "id": None}
            )
        if isinstance(req, list):
            return 200, _dump([(await self._call(r, uri_wallet))[1] for r in req])
        status, resp = await self._call(req, uri_wallet)
        return status, _dump(resp)

    async def _call(self, req, uri_wallet: str | None = None) -> tuple[int, dict]:
        """One request. A method may be a coroutine (importdescriptors while it rescans): other clients are served
        meanwhile."""
        if not isinstance(req, dict):
            return 400, {
                "result": None,
                "error": {"code": RPC_INVALID_REQUEST, "message": "Invalid Request object"},
                "id": None,
            }
        rid = req.get("id")
        v2 = req.get("jsonrpc") == "2.0"
        try:
            name = req.get("method")
            if not isinstance(name, str):
                raise RpcError(RPC_INVALID_REQUEST, "Method must be a string")
            from .wallet import PARAM_NAMES as WALLET_PARAM_NAMES
            from .wallet import WALLET_METHODS

            lead: list = []
            param_names = Methods.PARAM_NAMES
            if name in WALLET_METHODS:
                fn = getattr(self.wallet_methods, name, None) if self.wallet_methods is not None else None
                lead, param_names = [uri_wallet], WALLET_PARAM_NAMES
            else:
                fn = getattr(self.methods, name, None) if not name.startswith("_") and name != "PARAM_NAMES" else None
            if fn is None or not callable(fn):
                raise RpcError(RPC_METHOD_NOT_FOUND, "Method not found")
            params = req.get("params", [])
            if params is None:
                params = []
            if isinstance(params, dict):
                names = param_names.get(name, [])
                unknown = [k for k in params if k not in names]
                if unknown:
                    raise RpcError(RPC_INVALID_PARAMETER, f"Unknown named parameter {unknown[0]}")
                args = [params.get(n) for n in names]
                while args and args[-1] is None:
                    args.pop()
                params = args
            if not isinstance(params, list):
                raise RpcError(RPC_INVALID_REQUEST, "Params must be an array or object")
            try:
                import inspect

                inspect.signature(fn).bind(*lead, *params)
            except TypeError:
                raise RpcError(RPC_MISC_ERROR, f"{name}: wrong number of parameters (see help {name})") from None
            params = [p for p in params]
            # A JSON null for an optional positional parameter means "use the default", as in Core.
            sig = list(__import__("inspect").signature(fn).parameters.values())[len(lead) :]
            kwargs = {sig[i].name: p for i, p in enumerate(params) if p is not None}
            result = fn(*lead, **kwargs)
            if __import__("inspect").isawaitable(result):
                result = await result
            resp = {"result": result, "error": None, "id": rid}
            status = 200
        except RpcError as e:
            resp = {"result": None, "error": {"code": e.code, "message": e.message}, "id": rid}
            status = (
                200
                if v2
                else (404 if e.code == RPC_METHOD_NOT_FOUND else 400 if e.code == RPC_INVALID_REQUEST else 500)
            )
        except Exception as e:  # a bug must not kill the server: report it as Core reports internal errors
            log.exception("rpc %s failed", req.get("method"))
            resp = {"result": None, "error": {"code": RPC_MISC_ERROR, "message": f"internal error: {e}"}, "id": rid}
            status = 200 if v2 else 500
        if v2:
            resp = {
                "jsonrpc": "2.0",
                **{
                    k: v
                    for k, v in resp.items()
                    if not (k == "error" and v is None) and not (k == "result" and resp["error"] is not None)
                },
            }
        return status, resp


def _dump(obj) -> bytes:
    return (json.dumps(obj) + "\n").encode()
