"""The mempool: Core's acceptance checks in Core's order, scripts verified by libbitcoinkernel.

A transaction is accepted only if it is well formed, final, its inputs exist and are unspent (in the chain or in the
mempool), coinbase inputs are mature, it pays a fee of at least the relay minimum, and every input's script verifies
under `pbk.ScriptVerificationFlags.ALL` with all spent outputs supplied (so taproot is checked). Rejections carry
Core's reject reasons (`bad-txns-inputs-missingorspent`, `bad-txns-in-belowout, …`, …).

A transaction that conflicts with mempool transactions replaces them under Bitcoin Core 28's rules (full RBF by
default, so no BIP125 signal is needed): no new unconfirmed inputs, a higher feerate than each direct conflict, fees at
least those of everything evicted plus the incremental relay fee for its own size, and at most 100 evictions.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

import pbk

from .chain import COINBASE_MATURITY, MAX_BLOCK_WEIGHT, Chain, Coin
from .primitives import COIN, MAX_MONEY, Tx, format_money, hash_to_hex, sha256
from .script import is_unspendable

MIN_RELAY_FEE_PER_KVB = 1000  # sat per 1000 vbytes, Core's default -minrelaytxfee
INCREMENTAL_RELAY_FEE_PER_KVB = 1000  # Core's default -incrementalrelayfee
MAX_REPLACEMENT_CANDIDATES = 100  # Core's policy/rbf.h
MAX_BIP125_RBF_SEQUENCE = 0xFFFFFFFD
DEFAULT_MAX_FEE_RATE_PER_KVB = 10_000_000  # 0.10 BTC/kvB, sendrawtransaction's default maxfeerate
SEQUENCE_FINAL = 0xFFFFFFFF
SEQUENCE_LOCKTIME_DISABLE_FLAG = 1 << 31
SEQUENCE_LOCKTIME_TYPE_FLAG = 1 << 22
SEQUENCE_LOCKTIME_MASK = 0x0000FFFF
LOCKTIME_THRESHOLD = 500_000_000

log = logging.getLogger("regtest.mempool")


class TxReject(Exception):
    """A refused transaction. `kind` is Core's TxValidationResult family: 'consensus', 'policy', 'missing-inputs',
    'already-known' (outputs already confirmed), 'max-fee'."""

    def __init__(self, kind: str, reason: str, debug: str = ""):
        super().__init__(reason + (f", {debug}" if debug else ""))
        self.kind = kind
        self.reason = reason
        self.debug = debug

    def __str__(self) -> str:  # Core's ValidationState::ToString
        return self.reason + (f", {self.debug}" if self.debug else "")


@dataclass
class MempoolEntry:
    tx: Tx
    txid: bytes
    raw: bytes
    fee: int
    vsize: int
    weight: int
    time: int
    spent: list[Coin]
    parents: set[bytes] = field(default_factory=set)
    scripthashes: list[bytes] = field(default_factory=list)  # sha256(spk) of outputs and spent coins
    replaces: list[bytes] = field(default_factory=list)  # txids it evicts (its conflicts and their descendants)


class Mempool:
    def __init__(self, chain: Chain, full_rbf: bool = True):
        self.chain = chain
        self.full_rbf = full_rbf  # Core 28's -mempoolfullrbf (default 1): conflicts need no BIP125 signal
        self.on_evict: list = []  # callbacks(list of evicted MempoolEntry, replacing txid) for listeners
        self.entries: dict[bytes, MempoolEntry] = {}  # insertion order is a topological order
        self.spenders: dict[tuple[bytes, int], bytes] = {}  # outpoint -> txid of the mempool tx spending it

    # --- views ---------------------------------------------------------------------------------------------------

    def coin(self, outpoint: tuple[bytes, int], overlay: dict | None = None) -> Coin | None:
        """The unspent coin at `outpoint`, from the chain or the mempool (height = next block for mempool coins)."""
        c = self.chain.utxos.get(outpoint)
        if c is not None:
            return c
        parent = self.entries.get(outpoint[0]) or (overlay or {}).get(outpoint[0])
        if parent is not None and outpoint[1] < len(parent.tx.vout):
            o = parent.tx.vout[outpoint[1]]
            if not is_unspendable(o.script_pubkey):
                return Coin(o.value, o.script_pubkey, self.chain.height + 1, False)
        return None

    def descendants(self, txid: bytes) -> list[bytes]:
        out, todo = [], [txid]
        while todo:
            t = todo.pop()
            for other, e in self.entries.items():
                if t in e.parents and other not in out:
                    out.append(other)
                    todo.append(other)
        return out

    def ancestors(self, parents: set[bytes]) -> set[bytes]:
        out, todo = set(), list(parents)
        while todo:
            t = todo.pop()
            if t in out or t not in self.entries:
                continue
            out.add(t)
            todo.extend(self.entries[t].parents)
        return out

    def has_unconfirmed_parent(self, txid: bytes) -> bool:
        e = self.entries.get(txid)
        return bool(e and e.parents)

    # --- acceptance ----------------------------------------------------------------------------------------------

    def check(
        self,
        tx: Tx,
        raw: bytes,
        *,
        max_fee_rate: int | None = DEFAULT_MAX_FEE_RATE_PER_KVB,
        overlay: dict | None = None,
        allow_replacement: bool = True,
    ) -> MempoolEntry:
        """Runs every check; returns the entry that would be added (with `replaces`, the txids a replacement
        evicts), or raises TxReject. `allow_replacement=False` is Core's package test-accept context."""
        overlay = overlay or {}
        txid = tx.txid_bytes
        _check_transaction(tx)
        if tx.is_coinbase:
            raise TxReject("consensus", "coinbase")
        if tx.version < 1 or tx.version > 3:
            raise TxReject("policy", "version")
        if tx.stripped_size < 65:
            raise TxReject("policy", "tx-size-small")
        next_height = self.chain.height + 1
        mtp = self.chain.median_time_past()
        if not _is_final(tx, next_height, mtp):
            raise TxReject("policy", "non-final")
        known = self.entries.get(txid) or overlay.get(txid)
        if known is not None:
            if known.tx.wtxid_bytes == tx.wtxid_bytes:
                raise TxReject("policy", "txn-already-in-mempool")
            raise TxReject("policy", "txn-same-nonwitness-data-in-mempool")
        conflicts: list[bytes] = []  # direct conflicts, in input order (Core's ws.m_conflicts)
        for i in tx.vin:
            spender = self.spenders.get(i.outpoint)
            if spender is None:
                in_package = next((t for t, e in overlay.items() if i.outpoint in (x.outpoint for x in e.tx.vin)), None)
                if in_package is not None:
                    raise TxReject("policy", "conflict-in-package")
                continue
            if not allow_replacement:
                raise TxReject("policy", "bip125-replacement-disallowed")
            if spender not in conflicts:
                # Core 28 PreChecks: with -mempoolfullrbf=0 a conflict must signal BIP125; by default it need not.
                if not self.full_rbf and not any(
                    x.sequence <= MAX_BIP125_RBF_SEQUENCE for x in self.entries[spender].tx.vin
                ):
                    raise TxReject("policy", "txn-mempool-conflict")
                conflicts.append(spender)
        spent: list[Coin] = []
        parents: set[bytes] = set()
        for i in tx.vin:
            c = self.coin(i.outpoint, overlay)
            if c is None:
                if any((txid, n) in self.chain.utxos for n in range(len(tx.vout))):
                    raise TxReject("already-known", "txn-already-known")
                raise TxReject("missing-inputs", "bad-txns-inputs-missingorspent")
            spent.append(c)
            if i.prev_txid in self.entries or i.prev_txid in overlay:
                parents.add(i.prev_txid)
        if not self._sequence_locks_ok(tx, spent, next_height, mtp):
            raise TxReject("policy", "non-BIP68-final")
        value_in = 0
        for c in spent:
            if c.coinbase and next_height - c.height < COINBASE_MATURITY:
                raise TxReject(
                    "consensus",
                    "bad-txns-premature-spend-of-coinbase",
                    f"tried to spend coinbase at depth {next_height - c.height}",
                )
            value_in += c.value
            if not (0 <= c.value <= MAX_MONEY and value_in <= MAX_MONEY):
                raise TxReject("consensus", "bad-txns-inputvalues-outofrange")
        value_out = sum(o.value for o in tx.vout)
        if value_in < value_out:
            raise TxReject(
                "consensus",
                "bad-txns-in-belowout",
                f"value in ({format_money(value_in)}) < value out ({format_money(value_out)})",
            )
        fee = value_in - value_out
        vsize = tx.vsize
        min_fee = vsize * MIN_RELAY_FEE_PER_KVB // 1000
        if fee < min_fee:
            raise TxReject("policy", "min relay fee not met", f"{fee} < {min_fee}")
        if max_fee_rate and fee > vsize * max_fee_rate // 1000:
            raise TxReject("max-fee", "max-fee-exceeded", f"{fee} > {vsize * max_fee_rate // 1000}")
        replaces: list[bytes] = []
        if conflicts:
            for a in self.ancestors(parents):
                if a in conflicts:
                    raise TxReject(
                        "consensus",
                        "bad-txns-spends-conflicting-tx",
                        f"{tx.txid} spends conflicting transaction {hash_to_hex(a)}",
                    )
            replaces = self._replacement_checks(tx, fee, vsize, conflicts)
        _verify_scripts(tx, raw, spent)
        sh = [sha256(c.script_pubkey) for c in spent] + [sha256(o.script_pubkey) for o in tx.vout]
        return MempoolEntry(
            tx, txid, raw, fee, vsize, tx.weight, int(time.time()), spent, parents, list(dict.fromkeys(sh)), replaces
        )

    def _replacement_checks(self, tx: Tx, fee: int, vsize: int, conflicts: list[bytes]) -> list[bytes]:
        """Core 28's MemPoolAccept::ReplacementChecks (policy/rbf.cpp), in its order and with its wording.
        Returns every txid the replacement evicts."""
        txid = tx.txid
        # Rule 6: a higher feerate than each direct conflict (CFeeRate: sat/kvB, integer division).
        new_rate = fee * 1000 // vsize
        for c in conflicts:
            e = self.entries[c]
            old_rate = e.fee * 1000 // e.vsize
            if new_rate <= old_rate:
                raise TxReject(
                    "policy",
                    "insufficient fee",
                    f"rejecting replacement {txid}; new feerate {_fee_rate_str(new_rate)} <= "
                    f"old feerate {_fee_rate_str(old_rate)}",
                )
        # Rule 5: at most MAX_REPLACEMENT_CANDIDATES, counting each conflict with its descendants (overcounting
        # shared descendants, as Core does).
        count = 0
        for c in conflicts:
            count += 1 + len(self.descendants(c))
            if count > MAX_REPLACEMENT_CANDIDATES:
                raise TxReject(
                    "policy",
                    "too many potential replacements",
                    f"rejecting replacement {txid}; too many potential replacements "
                    f"({count} > {MAX_REPLACEMENT_CANDIDATES})",
                )
        evicted: list[bytes] = []
        for c in conflicts:
            for d in [c] + self.descendants(c):
                if d not in evicted:
                    evicted.append(d)
        # Rule 2: no new unconfirmed inputs (outputs of mempool transactions the conflicts did not already spend).
        parents_of_conflicts = {i.prev_txid for c in conflicts for i in self.entries[c].tx.vin}
        for j, i in enumerate(tx.vin):
            if i.prev_txid not in parents_of_conflicts and i.prev_txid in self.entries:
                raise TxReject(
                    "policy", "replacement-adds-unconfirmed", f"replacement {txid} adds unconfirmed input, idx {j}"
                )
        # Rules 3 and 4: pay at least what everything evicted paid, plus the incremental relay fee for itself.
        old_fees = sum(self.entries[d].fee for d in evicted)
        if fee < old_fees:
            raise TxReject(
                "policy",
                "insufficient fee",
                f"rejecting replacement {txid}, less fees than conflicting txs; "
                f"{format_money(fee)} < {format_money(old_fees)}",
            )
        relay = -(-vsize * INCREMENTAL_RELAY_FEE_PER_KVB // 1000)
        if fee - old_fees < relay:
            raise TxReject(
                "policy",
                "insufficient fee",
                f"rejecting replacement {txid}, not enough additional fees to relay; "
                f"{format_money(fee - old_fees)} < {format_money(relay)}",
            )
        return evicted

    def add(self, entry: MempoolEntry) -> None:
        evicted = [self.entries[t] for t in entry.replaces if t in self.entries]
        for e in evicted:
            self._remove(e.txid)
        if evicted:
            log.info("%s replaced %s", entry.tx.txid, ", ".join(e.tx.txid for e in evicted))
            for cb in list(self.on_evict):
                cb(evicted, entry.txid)
        self.entries[entry.txid] = entry
        for i in entry.tx.vin:
            self.spenders[i.outpoint] = entry.txid

    def accept(self, tx: Tx, raw: bytes, max_fee_rate: int | None = DEFAULT_MAX_FEE_RATE_PER_KVB) -> MempoolEntry:
        entry = self.check(tx, raw, max_fee_rate=max_fee_rate)
        self.add(entry)
        return entry

    def _sequence_locks_ok(self, tx: Tx, spent: list[Coin], next_height: int, mtp: int) -> bool:
        """BIP68 relative lock-times, evaluated for the next block as Core's CheckSequenceLocks does."""
        if tx.version < 2:
            return True
        min_height, min_time = -1, -1
        for i, c in zip(tx.vin, spent):
            if i.sequence & SEQUENCE_LOCKTIME_DISABLE_FLAG:
                continue
            value = i.sequence & SEQUENCE_LOCKTIME_MASK
            if i.sequence & SEQUENCE_LOCKTIME_TYPE_FLAG:
                coin_mtp = self.chain.median_time_past(max(c.height - 1, 0))
                min_time = max(min_time, coin_mtp + (value << 9) - 1)
            else:
                min_height = max(min_height, c.height + value - 1)
        return min_height < next_height and min_time < mtp

    # --- blocks --------------------------------------------------------------------------------------------------

    def select_for_block(self) -> tuple[list[MempoolEntry], int]:
        """Entries for the next block in topological order, within the weight limit; and their total fee."""
        chosen, chosen_ids, weight, fees = [], set(), 4000, 0
        for txid, e in self.entries.items():
            if weight + e.weight > MAX_BLOCK_WEIGHT - 4000 or not e.parents <= chosen_ids:
                continue
            chosen.append(e)
            chosen_ids.add(txid)
            weight += e.weight
            fees += e.fee
        return chosen, fees

    def remove_for_block(self, txs: list[Tx]) -> None:
        """Drops the mined transactions, and any mempool transaction (with its descendants) that conflicts."""
        mined = {t.txid_bytes for t in txs}
        for txid in mined:
            self._remove(txid)
        for t in txs:
            for i in t.vin:
                other = self.spenders.get(i.outpoint)
                if other is not None and other not in mined:
                    for d in [other] + self.descendants(other):
                        self._remove(d)
        for e in self.entries.values():
            e.parents -= mined

    def _remove(self, txid: bytes) -> None:
        e = self.entries.pop(txid, None)
        if e is None:
            return
        for i in e.tx.vin:
            if self.spenders.get(i.outpoint) == txid:
                del self.spenders[i.outpoint]

    # --- fees ----------------------------------------------------------------------------------------------------

    def fee_rate_estimate(self, target: int) -> int:
        """sat/kvB: the regtest answer. With an empty mempool it is the relay minimum (1 sat/vB); otherwise the fee
        rate of the mempool's median-weighted entry for targets <= 2, falling to the minimum for larger targets."""
        if not self.entries or target > 6:
            return MIN_RELAY_FEE_PER_KVB
        rates = sorted(e.fee * 1000 // e.vsize for e in self.entries.values())
        rate = rates[len(rates) // 2] if target <= 2 else rates[0]
        return max(MIN_RELAY_FEE_PER_KVB, rate)

    def fee_histogram(self) -> list[list[float]]:
        """Electrum's mempool.get_fee_histogram: [[fee_rate sat/vB, cumulative-bin vsize], …] highest rate first."""
        bins: dict[float, int] = {}
        for e in self.entries.values():
            r = round(e.fee / e.vsize, 1)
            bins[r] = bins.get(r, 0) + e.vsize
        return [[r, v] for r, v in sorted(bins.items(), reverse=True)]


def _fee_rate_str(sat_per_kvb: int) -> str:
    """CFeeRate::ToString(): '0.00002000 BTC/kvB'."""
    return f"{sat_per_kvb // COIN}.{sat_per_kvb % COIN:08d} BTC/kvB"


def _check_transaction(tx: Tx) -> None:
    """Core's CheckTransaction (context-free consensus checks)."""
    if not tx.vin:
        raise TxReject("consensus", "bad-txns-vin-empty")
    if not tx.vout:
        raise TxReject("consensus", "bad-txns-vout-empty")
    if tx.stripped_size * 4 > MAX_BLOCK_WEIGHT:
        raise TxReject("consensus", "bad-txns-oversize")
    total = 0
    for o in tx.vout:
        if o.value < 0:
            raise TxReject("consensus", "bad-txns-vout-negative")
        if o.value > MAX_MONEY:
            raise TxReject("consensus", "bad-txns-vout-toolarge")
        total += o.value
        if total > MAX_MONEY:
            raise TxReject("consensus", "bad-txns-txouttotal-toolarge")
    if len({i.outpoint for i in tx.vin}) != len(tx.vin):
        raise TxReject("consensus", "bad-txns-inputs-duplicate")
    if tx.is_coinbase:
        if not 2 <= len(tx.vin[0].script_sig) <= 100:
            raise TxReject("consensus", "bad-cb-length")
    elif any(i.is_null_prevout for i in tx.vin):
        raise TxReject("consensus", "bad-txns-prevout-null")


def _is_final(tx: Tx, height: int, block_time: int) -> bool:
    if tx.locktime == 0:
        return True
    limit = height if tx.locktime < LOCKTIME_THRESHOLD else block_time
    if tx.locktime < limit:
        return True
    return all(i.sequence == SEQUENCE_FINAL for i in tx.vin)


def _verify_scripts(tx: Tx, raw: bytes, spent: list[Coin]) -> None:
    """Each input against its spent output with libbitcoinkernel, all consensus flags, taproot data supplied."""
    ktx = pbk.Transaction(tx.serialize())
    outputs = [pbk.TransactionOutput(pbk.ScriptPubkey(c.script_pubkey), c.value) for c in spent]
    pre = pbk.script.PrecomputedTransactionData(ktx, outputs)
    for n, c in enumerate(spent):
        try:
            ok = pbk.ScriptPubkey(c.script_pubkey).verify(c.value, ktx, pre, n, pbk.ScriptVerificationFlags.ALL)
        except pbk.ScriptVerifyException as e:
            raise TxReject("consensus", f"mandatory-script-verify-flag-failed (input {n}: {e})") from e
        if not ok:
            raise TxReject("consensus", f"mandatory-script-verify-flag-failed (Script failed on input {n})")
