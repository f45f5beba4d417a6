extension EthereumTransaction {
    /// Parses an unsigned transaction as EIP-4527's sign-data carries it: a legacy RLP list of 6 fields (no chain
    /// id) or 9 (EIP-155: `…, chainId, 0, 0`), or `0x01`/`0x02` followed by the EIP-2930/EIP-1559 field list.
    ///
    /// - Throws: `TransactionError` naming what is wrong; non-canonical RLP is refused.
    public init(unsignedSerialized bytes: some Collection<UInt8>) throws(TransactionError) {
        let input = Array(bytes)
        guard let first = input.first else { throw .empty }
        if first >= 0xC0 {
            self = try Self.parseLegacy(Self.rlp(input))
            return
        }
        guard first == 0x01 || first == 0x02 else { throw .unsupportedType(first) }
        let fields = try Self.fields(Self.rlp(Array(input.dropFirst())), count: first == 0x01 ? 8 : 9, what: "typed")
        do {
            let chainID = try fields[0].uint64()
            guard chainID != 0 else { throw TransactionError.zeroChainID }
            let nonce = try fields[1].uint64()
            let kind: Kind
            let rest: ArraySlice<RLP>
            if first == 0x01 {
                kind = .accessList(gasPrice: try Self.uint256(fields[2]))
                rest = fields[3...]
            } else {
                kind = .dynamicFee(
                    maxPriorityFeePerGas: try Self.uint256(fields[2]), maxFeePerGas: try Self.uint256(fields[3]))
                rest = fields[4...]
            }
            let r = Array(rest)
            self.init(
                kind: kind, chainID: chainID, nonce: nonce, gasLimit: try r[0].uint64(), to: try Self.recipient(r[1]),
                value: Wei(try Self.uint256(r[2])), data: try r[3].byteString(),
                accessList: try Self.accessList(r[4]))
        } catch let error as RLPError {
            throw .rlp(error)
        } catch let error as TransactionError {
            throw error
        } catch {
            throw .rlp(.unexpectedKind(expected: "transaction field"))
        }
    }

    private static func parseLegacy(_ item: RLP) throws(TransactionError) -> EthereumTransaction {
        let items: [RLP]
        do { items = try item.listItems() } catch { throw .rlp(error) }
        guard items.count == 6 || items.count == 9 else {
            throw .rlp(.wrongItemCount("legacy transaction (6 or 9 fields)", found: items.count))
        }
        do {
            var chainID: UInt64?
            if items.count == 9 {
                let id = try items[6].uint64()
                guard id != 0 else { throw TransactionError.zeroChainID }
                guard try items[7].byteString().isEmpty, try items[8].byteString().isEmpty else {
                    throw TransactionError.invalidLegacySignatureFields
                }
                chainID = id
            }
            return EthereumTransaction(
                kind: .legacy(gasPrice: try uint256(items[1])), chainID: chainID, nonce: try items[0].uint64(),
                gasLimit: try items[2].uint64(), to: try recipient(items[3]), value: Wei(try uint256(items[4])),
                data: try items[5].byteString())
        } catch let error as RLPError {
            throw .rlp(error)
        } catch let error as TransactionError {
            throw error
        } catch {
            throw .rlp(.unexpectedKind(expected: "transaction field"))
        }
    }

    private static func rlp(_ bytes: [UInt8]) throws(TransactionError) -> RLP {
        do { return try RLP(serialized: bytes) } catch { throw .rlp(error) }
    }

    private static func fields(_ item: RLP, count: Int, what: String) throws(TransactionError) -> [RLP] {
        let items: [RLP]
        do { items = try item.listItems() } catch { throw .rlp(error) }
        guard items.count == count else { throw .rlp(.wrongItemCount("\(what) transaction", found: items.count)) }
        return items
    }

    static func uint256(_ item: RLP) throws -> UInt256 {
        try UInt256(bigEndian: item.unsignedBytes(maxBytes: 32))
    }

    private static func recipient(_ item: RLP) throws -> EthereumAddress? {
        let bytes = try item.byteString()
        if bytes.isEmpty { return nil }
        guard bytes.count == 20 else { throw TransactionError.invalidRecipient(length: bytes.count) }
        return try EthereumAddress(bytes: bytes)
    }

    private static func accessList(_ item: RLP) throws -> [AccessListEntry] {
        try item.listItems().map { entry in
            let pair = try entry.listItems()
            guard pair.count == 2 else { throw TransactionError.invalidAccessList("an entry is not [address, keys]") }
            let address = try pair[0].byteString()
            guard address.count == 20 else { throw TransactionError.invalidAccessList("an address is not 20 bytes") }
            let keys = try pair[1].listItems().map { key in
                let bytes = try key.byteString()
                guard bytes.count == 32 else {
                    throw TransactionError.invalidAccessList("a storage key is not 32 bytes")
                }
                return bytes
            }
            return AccessListEntry(address: try EthereumAddress(bytes: address), storageKeys: keys)
        }
    }
}
