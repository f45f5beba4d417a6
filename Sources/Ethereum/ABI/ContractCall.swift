/// A token call decoded from transaction calldata, for the signer's review: transfers, and every approval that lets
/// someone else move this account's tokens (docs/threat-model.md, "Approvals judged by effect").
///
/// Selectors are the first four bytes of the Keccak-256 of the Solidity signature (checked in the tests against
/// eth-utils). `approve(address,uint256)` and `transferFrom(address,address,uint256)` have the same selector in
/// ERC-20 (an amount) and ERC-721 (a token id): the calldata cannot tell which, so the review shows both readings.
///
/// - SeeAlso: https://eips.ethereum.org/EIPS/eip-20, https://eips.ethereum.org/EIPS/eip-721,
///   https://eips.ethereum.org/EIPS/eip-1155, https://eips.ethereum.org/EIPS/eip-2612,
///   https://github.com/Uniswap/permit2 (IAllowanceTransfer, ISignatureTransfer)
public enum ContractCall: Sendable, Equatable {
    /// One token allowance of a Permit2 `permit` (`PermitDetails`).
    public struct Permit2Details: Sendable, Equatable {
        /// The token.
        public let token: EthereumAddress
        /// The allowance (uint160).
        public let amount: UInt256
        /// When the allowance ends (unix time, uint48; 0 in `approve` means the same block).
        public let expiration: UInt256
        /// The permit's nonce.
        public let nonce: UInt256
    }

    /// ERC-20 `transfer(address,uint256)`.
    case transfer(to: EthereumAddress, amount: UInt256)
    /// ERC-20 `approve(address,uint256)` (an amount) or ERC-721 `approve(address,uint256)` (a token id).
    case approve(spender: EthereumAddress, value: UInt256)
    /// `increaseAllowance(address,uint256)` (OpenZeppelin ERC-20).
    case increaseAllowance(spender: EthereumAddress, added: UInt256)
    /// `decreaseAllowance(address,uint256)` (OpenZeppelin ERC-20).
    case decreaseAllowance(spender: EthereumAddress, subtracted: UInt256)
    /// ERC-20 `transferFrom` (an amount) or ERC-721 `transferFrom` (a token id).
    case transferFrom(from: EthereumAddress, to: EthereumAddress, value: UInt256)
    /// ERC-721 / ERC-1155 `setApprovalForAll(address,bool)`.
    case setApprovalForAll(operator: EthereumAddress, approved: Bool)
    /// ERC-721 `safeTransferFrom(address,address,uint256)` and `(…,bytes)`.
    case safeTransferFrom721(from: EthereumAddress, to: EthereumAddress, tokenID: UInt256)
    /// ERC-1155 `safeTransferFrom(address,address,uint256,uint256,bytes)`.
    case safeTransferFrom1155(from: EthereumAddress, to: EthereumAddress, id: UInt256, amount: UInt256)
    /// ERC-1155 `safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)`.
    case safeBatchTransferFrom1155(from: EthereumAddress, to: EthereumAddress, ids: [UInt256], amounts: [UInt256])
    /// EIP-2612 `permit(owner,spender,value,deadline,v,r,s)`: submits an owner's signed approval.
    case permit(owner: EthereumAddress, spender: EthereumAddress, value: UInt256, deadline: UInt256)
    /// DAI's `permit(holder,spender,nonce,expiry,allowed,v,r,s)`: an unlimited (or revoked) approval.
    case daiPermit(holder: EthereumAddress, spender: EthereumAddress, expiry: UInt256, allowed: Bool)
    /// Permit2 `approve(address token,address spender,uint160 amount,uint48 expiration)`.
    case permit2Approve(token: EthereumAddress, spender: EthereumAddress, amount: UInt256, expiration: UInt256)
    /// Permit2 `permit(owner, PermitSingle | PermitBatch, signature)`: submits an owner's signed allowances.
    case permit2Permit(owner: EthereumAddress, details: [Permit2Details], spender: EthereumAddress, batch: Bool)
    /// Permit2 `permitTransferFrom(PermitTransferFrom, SignatureTransferDetails, owner, signature)`.
    case permit2PermitTransferFrom(
        owner: EthereumAddress, token: EthereumAddress, amount: UInt256, to: EthereumAddress, requested: UInt256)
    /// Permit2 `transferFrom(address from,address to,uint160 amount,address token)`.
    case permit2TransferFrom(from: EthereumAddress, to: EthereumAddress, amount: UInt256, token: EthereumAddress)

    /// The selectors, by Solidity signature.
    public static let selectors: [String: [UInt8]] = [
        "transfer(address,uint256)": [0xA9, 0x05, 0x9C, 0xBB],
        "approve(address,uint256)": [0x09, 0x5E, 0xA7, 0xB3],
        "increaseAllowance(address,uint256)": [0x39, 0x50, 0x93, 0x51],
        "decreaseAllowance(address,uint256)": [0xA4, 0x57, 0xC2, 0xD7],
        "transferFrom(address,address,uint256)": [0x23, 0xB8, 0x72, 0xDD],
        "setApprovalForAll(address,bool)": [0xA2, 0x2C, 0xB4, 0x65],
        "safeTransferFrom(address,address,uint256)": [0x42, 0x84, 0x2E, 0x0E],
        "safeTransferFrom(address,address,uint256,bytes)": [0xB8, 0x8D, 0x4F, 0xDE],
        "safeTransferFrom(address,address,uint256,uint256,bytes)": [0xF2, 0x42, 0x43, 0x2A],
        "safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)": [0x2E, 0xB2, 0xC2, 0xD6],
        "permit(address,address,uint256,uint256,uint8,bytes32,bytes32)": [0xD5, 0x05, 0xAC, 0xCF],
        "permit(address,address,uint256,uint256,bool,uint8,bytes32,bytes32)": [0x8F, 0xCB, 0xAF, 0x0C],
        "approve(address,address,uint160,uint48)": [0x87, 0x51, 0x7C, 0x45],
        "permit(address,((address,uint160,uint48,uint48),address,uint256),bytes)": [0x2B, 0x67, 0xB5, 0x70],
        "permit(address,((address,uint160,uint48,uint48)[],address,uint256),bytes)": [0x2A, 0x2D, 0x80, 0xD1],
        "permitTransferFrom(((address,uint256),uint256,uint256),(address,uint256),address,bytes)": [
            0x30, 0xF2, 0x8B, 0x7A,
        ],
        "transferFrom(address,address,uint160,address)": [0x36, 0xC7, 0x85, 0x16],
    ]

    /// Decodes calldata; nil when the selector is none of these (the call cannot be shown).
    ///
    /// - Throws: `ABIError` when the selector matches but the arguments are malformed.
    public init?(calldata: [UInt8]) throws(ABIError) {
        guard calldata.count >= 4 else { return nil }
        let selector = Array(calldata.prefix(4))
        guard let signature = Self.selectors.first(where: { $0.value == selector })?.key else { return nil }
        var r = ABIReader(Array(calldata.dropFirst(4)))
        switch signature {
        case "transfer(address,uint256)":
            try r.exact(2)
            self = .transfer(to: try r.address(0), amount: try r.uint(1))
        case "approve(address,uint256)":
            try r.exact(2)
            self = .approve(spender: try r.address(0), value: try r.uint(1))
        case "increaseAllowance(address,uint256)":
            try r.exact(2)
            self = .increaseAllowance(spender: try r.address(0), added: try r.uint(1))
        case "decreaseAllowance(address,uint256)":
            try r.exact(2)
            self = .decreaseAllowance(spender: try r.address(0), subtracted: try r.uint(1))
        case "transferFrom(address,address,uint256)":
            try r.exact(3)
            self = .transferFrom(from: try r.address(0), to: try r.address(1), value: try r.uint(2))
        case "setApprovalForAll(address,bool)":
            try r.exact(2)
            self = .setApprovalForAll(operator: try r.address(0), approved: try r.bool(1))
        case "safeTransferFrom(address,address,uint256)":
            try r.exact(3)
            self = .safeTransferFrom721(from: try r.address(0), to: try r.address(1), tokenID: try r.uint(2))
        case "safeTransferFrom(address,address,uint256,bytes)":
            _ = try r.bytes(3)
            self = .safeTransferFrom721(from: try r.address(0), to: try r.address(1), tokenID: try r.uint(2))
        case "safeTransferFrom(address,address,uint256,uint256,bytes)":
            _ = try r.bytes(4)
            self = .safeTransferFrom1155(
                from: try r.address(0), to: try r.address(1), id: try r.uint(2), amount: try r.uint(3))
        case "safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)":
            _ = try r.bytes(4)
            let ids = try r.uintArray(at: try r.offset(2))
            let amounts = try r.uintArray(at: try r.offset(3))
            guard ids.count == amounts.count else { throw .malformed("ids and amounts differ in length") }
            self = .safeBatchTransferFrom1155(from: try r.address(0), to: try r.address(1), ids: ids, amounts: amounts)
        case "permit(address,address,uint256,uint256,uint8,bytes32,bytes32)":
            try r.exact(7)
            _ = try r.uint(4, bits: 8)
            self = .permit(
                owner: try r.address(0), spender: try r.address(1), value: try r.uint(2), deadline: try r.uint(3))
        case "permit(address,address,uint256,uint256,bool,uint8,bytes32,bytes32)":
            try r.exact(8)
            _ = try r.uint(5, bits: 8)
            self = .daiPermit(
                holder: try r.address(0), spender: try r.address(1), expiry: try r.uint(3), allowed: try r.bool(4))
        case "approve(address,address,uint160,uint48)":
            try r.exact(4)
            self = .permit2Approve(
                token: try r.address(0), spender: try r.address(1), amount: try r.uint(2, bits: 160),
                expiration: try r.uint(3, bits: 48))
        case "permit(address,((address,uint160,uint48,uint48),address,uint256),bytes)":
            // owner, PermitSingle (static: details (4 words), spender, sigDeadline), signature.
            _ = try r.bytes(7)
            self = .permit2Permit(
                owner: try r.address(0), details: [try r.permitDetails(at: 1)], spender: try r.address(5), batch: false)
        case "permit(address,((address,uint160,uint48,uint48)[],address,uint256),bytes)":
            // owner, PermitBatch (dynamic: offset to its head of details offset, spender, sigDeadline), signature.
            _ = try r.bytes(2)
            let tuple = try r.offset(1)
            let arrayStart = tuple + (try r.offsetWord(atByte: tuple))
            let count = try r.length(atByte: arrayStart, itemWords: 4)
            var details: [Permit2Details] = []
            for i in 0..<count { details.append(try r.permitDetails(atByte: arrayStart + 32 + 128 * i)) }
            self = .permit2Permit(
                owner: try r.address(0), details: details, spender: try r.address(atByte: tuple + 32), batch: true)
        case "permitTransferFrom(((address,uint256),uint256,uint256),(address,uint256),address,bytes)":
            // PermitTransferFrom (token, amount, nonce, deadline), SignatureTransferDetails (to, amount), owner, sig.
            _ = try r.bytes(7)
            self = .permit2PermitTransferFrom(
                owner: try r.address(6), token: try r.address(0), amount: try r.uint(1), to: try r.address(4),
                requested: try r.uint(5))
        default:  // "transferFrom(address,address,uint160,address)"
            try r.exact(4)
            self = .permit2TransferFrom(
                from: try r.address(0), to: try r.address(1), amount: try r.uint(2, bits: 160), token: try r.address(3))
        }
    }
}

/// Reads the 32-byte words of ABI-encoded arguments (after the selector), refusing what a strict decoder refuses:
/// an address or narrow integer with bits set above its width, a bool other than 0 or 1, an offset or length outside
/// the data.
struct ABIReader {
    let data: [UInt8]

    init(_ data: [UInt8]) { self.data = data }

    /// The data is exactly `words` words.
    func exact(_ words: Int) throws(ABIError) {
        guard data.count == 32 * words else { throw .wrongLength(expected: 4 + 32 * words, actual: 4 + data.count) }
    }

    func word(atByte start: Int) throws(ABIError) -> [UInt8] {
        guard start >= 0, start + 32 <= data.count else { throw .malformed("an argument lies outside the data") }
        return Array(data[start..<(start + 32)])
    }

    func uint(atByte start: Int, bits: Int = 256) throws(ABIError) -> UInt256 {
        let w = try word(atByte: start)
        let value: UInt256
        do { value = try UInt256(bigEndian: w) } catch { throw .malformed("an integer is not 32 bytes") }
        guard bits == 256 || w.prefix((256 - bits) / 8).allSatisfy({ $0 == 0 }) else {
            throw .malformed("an integer is wider than \(bits) bits")
        }
        return value
    }

    func uint(_ index: Int, bits: Int = 256) throws(ABIError) -> UInt256 { try uint(atByte: 32 * index, bits: bits) }

    func address(atByte start: Int) throws(ABIError) -> EthereumAddress {
        let w = try word(atByte: start)
        guard w.prefix(12).allSatisfy({ $0 == 0 }) else { throw .dirtyAddressWord }
        do { return try EthereumAddress(bytes: Array(w.suffix(20))) } catch { throw .dirtyAddressWord }
    }

    func address(_ index: Int) throws(ABIError) -> EthereumAddress { try address(atByte: 32 * index) }

    func bool(_ index: Int) throws(ABIError) -> Bool {
        let value = try uint(index)
        guard value.isZero || value == UInt256(1) else { throw .malformed("a bool is neither 0 nor 1") }
        return !value.isZero
    }

    /// A small non-negative integer word (an offset or a length), in bytes.
    func offsetWord(atByte start: Int) throws(ABIError) -> Int {
        let value = try uint(atByte: start)
        guard let small = value.uint64, small <= UInt64(data.count) else {
            throw .malformed("an offset or length lies outside the data")
        }
        return Int(small)
    }

    /// The byte offset a head word `index` points to.
    func offset(_ index: Int) throws(ABIError) -> Int { try offsetWord(atByte: 32 * index) }

    /// A length word at `start` whose items of `itemWords` words fit in the data after it.
    func length(atByte start: Int, itemWords: Int) throws(ABIError) -> Int {
        let count = try offsetWord(atByte: start)
        guard start + 32 + count * 32 * itemWords <= data.count else {
            throw .malformed("an array runs past the data")
        }
        return count
    }

    /// The `bytes` argument whose head word is `index`.
    func bytes(_ index: Int) throws(ABIError) -> [UInt8] {
        let start = try offset(index)
        let count = try offsetWord(atByte: start)
        guard start + 32 + count <= data.count else { throw .malformed("a bytes argument runs past the data") }
        return Array(data[(start + 32)..<(start + 32 + count)])
    }

    func uintArray(at start: Int) throws(ABIError) -> [UInt256] {
        let count = try length(atByte: start, itemWords: 1)
        var items: [UInt256] = []
        for i in 0..<count { items.append(try uint(atByte: start + 32 + 32 * i)) }
        return items
    }

    func permitDetails(atByte start: Int) throws(ABIError) -> ContractCall.Permit2Details {
        ContractCall.Permit2Details(
            token: try address(atByte: start), amount: try uint(atByte: start + 32, bits: 160),
            expiration: try uint(atByte: start + 64, bits: 48), nonce: try uint(atByte: start + 96, bits: 48))
    }

    func permitDetails(at index: Int) throws(ABIError) -> ContractCall.Permit2Details {
        try permitDetails(atByte: 32 * index)
    }
}
