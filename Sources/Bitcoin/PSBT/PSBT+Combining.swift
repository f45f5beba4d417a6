extension PSBT {
    /// The BIP174 Combiner: merges the records of `others` into this PSBT (a key already present keeps this PSBT's
    /// value), in Bitcoin Core's field order.
    ///
    /// - Throws: `PSBTError.combineMismatch` when the PSBTs are for different transactions or versions.
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0174.mediawiki#combiner
    public func combined(with others: [PSBT]) throws(PSBTError) -> PSBT {
        var result = self
        let txid = try unsignedTxid()
        for other in others {
            guard other.version == version, other.inputs.count == inputs.count, other.outputs.count == outputs.count,
                (try? other.unsignedTxid()) == txid
            else { throw .combineMismatch }
            Self.merge(&result.global, other.global)
            for index in inputs.indices { Self.merge(&result.inputs[index].map, other.inputs[index].map) }
            for index in outputs.indices { Self.merge(&result.outputs[index].map, other.outputs[index].map) }
        }
        result.canonicalize()
        return result
    }

    private static func merge(_ target: inout PSBTMap, _ source: PSBTMap) {
        var present = Set(target.entries.map(\.key))
        for entry in source.entries where present.insert(entry.key).inserted {
            target.entries.append(entry)
        }
    }
}
