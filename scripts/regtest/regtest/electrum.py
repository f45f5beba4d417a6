"""Electrum protocol 1.4 over TCP on loopback: newline-delimited JSON-RPC 2.0, batches, subscriptions.

A client that sends a line that is not JSON gets a JSON-RPC parse error; an unknown method gets "method not found";
a line longer than MAX_LINE, or a client that goes away mid-batch, only ends that client's session.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging

from .mempool import MIN_RELAY_FEE_PER_KVB, TxReject
from .primitives import (
    COIN,
    DecodeError,
    dsha256,
    hash_to_hex,
    hex_to_hash,
    merkle_branch,
    merkle_root,
    parse_tx_hex,
)

log = logging.getLogger("regtest.electrum")

SERVER_VERSION = "AirlockRegtest 0.1"
PROTOCOL = "1.4"
MAX_LINE = 16 * 1024 * 1024
MAX_HEADERS = 2016

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603
BAD_REQUEST, DAEMON_ERROR = 1, 2


class ElectrumError(Exception):
    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def _scripthash_param(v) -> bytes:
    if not isinstance(v, str) or len(v) != 64:
        raise ElectrumError(BAD_REQUEST, f"{v!r} is not a valid script hash")
    try:
        return bytes.fromhex(v)[::-1]  # -> sha256(spk) in natural order
    except ValueError:
        raise ElectrumError(BAD_REQUEST, f"{v!r} is not a valid script hash") from None


def _txid_param(v) -> bytes:
    try:
        return hex_to_hash(v)
    except (ValueError, TypeError):
        raise ElectrumError(BAD_REQUEST, f"{v!r} should be a transaction hash") from None


def _int_param(v, name: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ElectrumError(BAD_REQUEST, f"{name} should be a non-negative integer")
    if v < 0:
        raise ElectrumError(BAD_REQUEST, f"{name} should be a non-negative integer")
    return v


class ElectrumServer:
    def __init__(self, node):
        self.node = node
        self.sessions: set[Session] = set()
        self.server: asyncio.base_events.Server | None = None
        self.port = 0
        self._notify_scheduled = False
        node.listeners.append(self._on_change)

    async def start(self, host: str, port: int) -> None:
        self.server = await asyncio.start_server(self._client, host, port, limit=MAX_LINE)
        self.port = self.server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self.server:
            self.server.close()
        for s in list(self.sessions):
            s.close()
        if self.server:
            try:
                await asyncio.wait_for(self.server.wait_closed(), 2)
            except TimeoutError:
                pass

    def _on_change(self) -> None:
        if not self._notify_scheduled:
            self._notify_scheduled = True
            asyncio.get_running_loop().call_soon(self._notify)

    def _notify(self) -> None:
        self._notify_scheduled = False
        header = self.header_json(self.node.chain.height)
        statuses: dict[bytes, str | None] = {}
        for s in list(self.sessions):
            try:
                s.notify_changes(header, statuses)
            except Exception:
                log.exception("notifying a session failed; dropping it")
                s.close()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        session = Session(self, writer)
        self.sessions.add(session)
        peer = writer.get_extra_info("peername")
        log.info("electrum client %s connected", peer)
        try:
            while not session.closed:
                try:
                    line = await reader.readuntil(b"\n")
                except asyncio.IncompleteReadError as e:
                    if e.partial.strip():
                        session.handle_line(e.partial)  # a last request without newline still gets an answer
                    break
                except asyncio.LimitOverrunError:
                    log.info("electrum client %s sent an over-long line; dropping it", peer)
                    break
                if line.strip():
                    session.handle_line(line)
                    await session.drain()
        except (ConnectionError, OSError):
            pass
        except Exception:
            log.exception("electrum session failed")
        finally:
            log.info("electrum client %s disconnected", peer)
            self.sessions.discard(session)
            session.close()

    # --- data the methods share ----------------------------------------------------------------------------------

    def header_json(self, height: int) -> dict:
        return {"hex": self.node.chain.blocks[height].header.serialize().hex(), "height": height}

    def history(self, sh: bytes) -> list[dict]:
        chain, mempool = self.node.chain, self.node.mempool
        out = [{"height": h, "tx_hash": hash_to_hex(t)} for h, t in chain.history.get(sh, [])]
        for txid, e in mempool.entries.items():
            if sh in e.scripthashes:
                out.append({"tx_hash": hash_to_hex(txid), "height": -1 if e.parents else 0, "fee": e.fee})
        return out

    def status(self, sh: bytes) -> str | None:
        hist = self.history(sh)
        if not hist:
            return None
        return hashlib.sha256("".join(f"{h['tx_hash']}:{h['height']}:" for h in hist).encode()).hexdigest()


class Session:
    def __init__(self, server: ElectrumServer, writer: asyncio.StreamWriter):
        self.server = server
        self.node = server.node
        self.writer = writer
        self.closed = False
        self.headers_subscribed = False
        self.last_header_height = -1
        self.subscriptions: dict[bytes, str | None] = {}  # sha256(spk) -> last status sent

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.writer.close()

    async def drain(self) -> None:
        await self.writer.drain()

    def send(self, obj) -> None:
        if self.closed or self.writer.is_closing():
            return
        self.writer.write((json.dumps(obj) + "\n").encode())

    # --- requests ------------------------------------------------------------------------------------------------

    def handle_line(self, line: bytes) -> None:
        try:
            req = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            self.send(
                {"jsonrpc": "2.0", "error": {"code": PARSE_ERROR, "message": "parse error: invalid JSON"}, "id": None}
            )
            return
        if isinstance(req, list):
            if not req:
                self.send({"jsonrpc": "2.0", "error": {"code": INVALID_REQUEST, "message": "empty batch"}, "id": None})
                return
            replies = [r for r in (self.handle_request(x) for x in req) if r is not None]
            if replies:
                self.send(replies)
        else:
            reply = self.handle_request(req)
            if reply is not None:
                self.send(reply)

    def handle_request(self, req) -> dict | None:
        if not isinstance(req, dict):
            return {
                "jsonrpc": "2.0",
                "error": {"code": INVALID_REQUEST, "message": "request must be an object"},
                "id": None,
            }
        rid = req.get("id")
        method = req.get("method")
        params = req.get("params", [])
        is_notification = "id" not in req
        try:
            if not isinstance(method, str):
                raise ElectrumError(INVALID_REQUEST, "method must be a string")
            handler = METHODS.get(method)
            if handler is None:
                raise ElectrumError(METHOD_NOT_FOUND, f'unknown method "{method}"')
            if params is None:
                params = []
            if isinstance(params, dict):
                result = handler(self, **params)
            elif isinstance(params, list):
                result = handler(self, *params)
            else:
                raise ElectrumError(INVALID_REQUEST, "params must be an array or an object")
            reply = {"jsonrpc": "2.0", "result": result, "id": rid}
        except ElectrumError as e:
            reply = {"jsonrpc": "2.0", "error": {"code": e.code, "message": e.message}, "id": rid}
        except TypeError as e:
            reply = {"jsonrpc": "2.0", "error": {"code": INVALID_PARAMS, "message": f"invalid params: {e}"}, "id": rid}
        except Exception as e:
            log.exception("electrum %s failed", method)
            reply = {"jsonrpc": "2.0", "error": {"code": INTERNAL_ERROR, "message": f"internal error: {e}"}, "id": rid}
        return None if is_notification else reply

    # --- notifications -------------------------------------------------------------------------------------------

    def notify_changes(self, header: dict, cache: dict) -> None:
        if self.headers_subscribed and header["height"] != self.last_header_height:
            self.last_header_height = header["height"]
            self.send({"jsonrpc": "2.0", "method": "blockchain.headers.subscribe", "params": [header]})
        for sh, old in list(self.subscriptions.items()):
            if sh not in cache:
                cache[sh] = self.server.status(sh)
            if cache[sh] != old:
                self.subscriptions[sh] = cache[sh]
                self.send(
                    {
                        "jsonrpc": "2.0",
                        "method": "blockchain.scripthash.subscribe",
                        "params": [sh[::-1].hex(), cache[sh]],
                    }
                )


# --- methods -----------------------------------------------------------------------------------------------------


def server_version(s: Session, client_name="", protocol_version=PROTOCOL):
    versions = protocol_version if isinstance(protocol_version, list) else [protocol_version, protocol_version]
    try:
        lo, hi = (tuple(int(x) for x in str(v).split(".")) for v in versions[:2])
    except (ValueError, TypeError):
        raise ElectrumError(BAD_REQUEST, f"invalid protocol version: {protocol_version!r}") from None
    if not lo <= (1, 4) <= hi and not (lo <= (1, 4) and hi >= (1, 4)):
        raise ElectrumError(BAD_REQUEST, f"unsupported protocol version: {protocol_version!r}")
    return [SERVER_VERSION, PROTOCOL]


def server_features(s: Session):
    return {
        "genesis_hash": hash_to_hex(s.node.chain.blocks[0].hash),
        "hosts": {"127.0.0.1": {"tcp_port": s.server.port, "ssl_port": None}},
        "protocol_max": PROTOCOL,
        "protocol_min": PROTOCOL,
        "pruning": None,
        "server_version": SERVER_VERSION,
        "hash_function": "sha256",
    }


def server_ping(s: Session):
    return None


def server_banner(s: Session):
    return "Airlock regtest fixture (libbitcoinkernel inside). Not a node for real money."


def server_donation_address(s: Session):
    return ""


def server_peers_subscribe(s: Session):
    return []


def headers_subscribe(s: Session, *_ignored):
    s.headers_subscribed = True
    s.last_header_height = s.node.chain.height
    return s.server.header_json(s.node.chain.height)


def _cp_proof(s: Session, height: int, cp_height: int) -> dict:
    chain = s.node.chain
    if cp_height > chain.height or height > cp_height:
        raise ElectrumError(
            BAD_REQUEST,
            f"header height {height} must be <= cp_height {cp_height} which must be <= chain height {chain.height}",
        )
    leaves = [dsha256(chain.blocks[h].header.serialize()) for h in range(cp_height + 1)]
    return {"branch": [hash_to_hex(b) for b in merkle_branch(leaves, height)], "root": hash_to_hex(merkle_root(leaves))}


def block_header(s: Session, height=None, cp_height=0):
    height = _int_param(height, "height")
    cp_height = _int_param(cp_height, "cp_height")
    chain = s.node.chain
    if height > chain.height:
        raise ElectrumError(BAD_REQUEST, f"height {height} out of range")
    hdr = chain.blocks[height].header.serialize().hex()
    if cp_height == 0:
        return hdr
    return {"header": hdr, **_cp_proof(s, height, cp_height)}


def block_headers(s: Session, start_height=None, count=None, cp_height=0):
    start = _int_param(start_height, "start_height")
    count = min(_int_param(count, "count"), MAX_HEADERS)
    cp_height = _int_param(cp_height, "cp_height")
    chain = s.node.chain
    heights = range(start, min(start + count, chain.height + 1))
    out = {
        "count": len(heights),
        "hex": "".join(chain.blocks[h].header.serialize().hex() for h in heights),
        "max": MAX_HEADERS,
    }
    if cp_height and len(heights):
        out.update(_cp_proof(s, heights[-1], cp_height))
    return out


def sh_get_balance(s: Session, scripthash=None):
    sh = _scripthash_param(scripthash)
    mempool = s.node.mempool
    confirmed = sum(c.value for c in _confirmed_utxos(s, sh).values())
    unconfirmed = 0
    for e in mempool.entries.values():
        if sh in e.scripthashes:
            unconfirmed += sum(o.value for o in e.tx.vout if hashlib.sha256(o.script_pubkey).digest() == sh)
            unconfirmed -= sum(c.value for c in e.spent if hashlib.sha256(c.script_pubkey).digest() == sh)
    return {"confirmed": confirmed, "unconfirmed": unconfirmed}


def _confirmed_utxos(s: Session, sh: bytes) -> dict:
    chain = s.node.chain
    out = {}
    for _height, txid in chain.history.get(sh, []):
        loc = chain.txindex[txid]
        tx = parse_tx_hex(loc.raw.hex())
        for n in range(len(tx.vout)):
            c = chain.utxos.get((txid, n))
            if c is not None and hashlib.sha256(c.script_pubkey).digest() == sh:
                out[(txid, n)] = c
    return out


def sh_get_history(s: Session, scripthash=None):
    return s.server.history(_scripthash_param(scripthash))


def sh_get_mempool(s: Session, scripthash=None):
    return [h for h in s.server.history(_scripthash_param(scripthash)) if h["height"] <= 0]


def sh_listunspent(s: Session, scripthash=None):
    sh = _scripthash_param(scripthash)
    mempool = s.node.mempool
    out = []
    for (txid, n), c in _confirmed_utxos(s, sh).items():
        if (txid, n) not in mempool.spenders:
            out.append({"tx_pos": n, "value": c.value, "tx_hash": hash_to_hex(txid), "height": c.height})
    out.sort(key=lambda u: (u["height"], u["tx_hash"], u["tx_pos"]))
    for txid, e in mempool.entries.items():
        for n, o in enumerate(e.tx.vout):
            if hashlib.sha256(o.script_pubkey).digest() == sh and (txid, n) not in mempool.spenders:
                out.append({"tx_pos": n, "value": o.value, "tx_hash": hash_to_hex(txid), "height": 0})
    return out


def sh_subscribe(s: Session, scripthash=None):
    sh = _scripthash_param(scripthash)
    status = s.server.status(sh)
    s.subscriptions[sh] = status
    return status


def sh_unsubscribe(s: Session, scripthash=None):
    return s.subscriptions.pop(_scripthash_param(scripthash), False) is not False


def tx_get(s: Session, tx_hash=None, verbose=False):
    txid = _txid_param(tx_hash)
    chain, mempool = s.node.chain, s.node.mempool
    loc = chain.get_tx(txid)
    if loc is not None:
        raw, height = loc.raw, loc.height
    elif txid in mempool.entries:
        raw, height = mempool.entries[txid].raw, None
    else:
        raise ElectrumError(
            BAD_REQUEST, "No such mempool or blockchain transaction. Use gettransaction for wallet transactions."
        )
    if not verbose:
        return raw.hex()
    from .rpc import Methods

    m = Methods(s.node, asyncio.Event())
    out = m._tx_json(parse_tx_hex(raw.hex()))
    out["hex"] = raw.hex()
    if height is not None:
        b = chain.blocks[height]
        out.update(
            {
                "blockhash": hash_to_hex(b.hash),
                "confirmations": chain.height - height + 1,
                "time": b.header.time,
                "blocktime": b.header.time,
            }
        )
    return out


def tx_get_merkle(s: Session, tx_hash=None, height=None):
    txid = _txid_param(tx_hash)
    height = _int_param(height, "height")
    chain = s.node.chain
    loc = chain.get_tx(txid)
    if loc is None or loc.height != height:
        raise ElectrumError(BAD_REQUEST, f"tx {hash_to_hex(txid)} not in block at height {height}")
    txids = chain.blocks[height].txids
    return {"block_height": height, "merkle": [hash_to_hex(b) for b in merkle_branch(txids, loc.pos)], "pos": loc.pos}


def tx_id_from_pos(s: Session, height=None, tx_pos=None, merkle=False):
    height = _int_param(height, "height")
    pos = _int_param(tx_pos, "tx_pos")
    chain = s.node.chain
    if height > chain.height or pos >= len(chain.blocks[height].txids):
        raise ElectrumError(BAD_REQUEST, f"no tx at position {pos} in block at height {height}")
    txids = chain.blocks[height].txids
    if not merkle:
        return hash_to_hex(txids[pos])
    return {"tx_hash": hash_to_hex(txids[pos]), "merkle": [hash_to_hex(b) for b in merkle_branch(txids, pos)]}


def tx_broadcast(s: Session, raw_tx=None):
    if not isinstance(raw_tx, str):
        raise ElectrumError(BAD_REQUEST, "raw_tx should be a hex string")
    try:
        tx = parse_tx_hex(raw_tx)
    except DecodeError:
        raise ElectrumError(
            BAD_REQUEST, f"the transaction was rejected by network rules.\n\nTX decode failed\n[{raw_tx}]"
        ) from None
    if tx.txid_bytes in s.node.mempool.entries:
        return tx.txid
    try:
        s.node.submit_tx(tx, bytes.fromhex(raw_tx), None)
    except TxReject as e:
        raise ElectrumError(BAD_REQUEST, f"the transaction was rejected by network rules.\n\n{e}\n[{raw_tx}]") from None
    return tx.txid


def estimatefee(s: Session, number=None, mode=None):
    n = _int_param(number, "number")
    return s.node.mempool.fee_rate_estimate(max(n, 1)) / COIN


def relayfee(s: Session):
    return MIN_RELAY_FEE_PER_KVB / COIN


def fee_histogram(s: Session):
    return s.node.mempool.fee_histogram()


METHODS = {
    "server.version": server_version,
    "server.features": server_features,
    "server.ping": server_ping,
    "server.banner": server_banner,
    "server.donation_address": server_donation_address,
    "server.peers.subscribe": server_peers_subscribe,
    "blockchain.headers.subscribe": headers_subscribe,
    "blockchain.block.header": block_header,
    "blockchain.block.headers": block_headers,
    "blockchain.scripthash.get_balance": sh_get_balance,
    "blockchain.scripthash.get_history": sh_get_history,
    "blockchain.scripthash.get_mempool": sh_get_mempool,
    "blockchain.scripthash.listunspent": sh_listunspent,
    "blockchain.scripthash.subscribe": sh_subscribe,
    "blockchain.scripthash.unsubscribe": sh_unsubscribe,
    "blockchain.transaction.get": tx_get,
    "blockchain.transaction.get_merkle": tx_get_merkle,
    "blockchain.transaction.id_from_pos": tx_id_from_pos,
    "blockchain.transaction.broadcast": tx_broadcast,
    "blockchain.estimatefee": estimatefee,
    "blockchain.relayfee": relayfee,
    "mempool.get_fee_histogram": fee_histogram,
}
