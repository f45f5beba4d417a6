import Testing

@testable import Ethereum

/// ERC-20 `transfer`, `approve`, `transferFrom` calldata, decoded and encoded (EIP-20 selectors).
extension EthereumAddress {
    /// A test address of twenty equal bytes.
    init(publicKeyHashSuffix byte: UInt8) { self.init(uncheckedBytes: [UInt8](repeating: byte, count: 20)) }
}

@Suite("ERC-20 calls")
struct ERC20Tests {
    static let alice = EthereumAddress(publicKeyHashSuffix: 0xA1)
    static let bob = EthereumAddress(publicKeyHashSuffix: 0xB0)

    @Test("The selectors are Keccak-256 of the signatures")
    func selectors() {
        #expect(Array(Keccak256.hash(Array("transfer(address,uint256)".utf8)).prefix(4)) == ERC20Call.transferSelector)
        #expect(Array(Keccak256.hash(Array("approve(address,uint256)".utf8)).prefix(4)) == ERC20Call.approveSelector)
        #expect(
            Array(Keccak256.hash(Array("transferFrom(address,address,uint256)".utf8)).prefix(4))
                == ERC20Call.transferFromSelector)
    }

    @Test("Round trips, and an unlimited approval is recognised (a finite one is not)")
    func roundTrip() throws {
        let calls: [ERC20Call] = [
            .transfer(to: Self.alice, amount: UInt256(12_500_000)),
            .approve(spender: Self.bob, amount: .max),
            .approve(spender: Self.bob, amount: UInt256(1)),
            .transferFrom(from: Self.alice, to: Self.bob, amount: UInt256(7)),
        ]
        for call in calls { #expect(try ERC20Call(calldata: call.calldata) == call) }
        #expect(calls[1].isUnlimitedApproval)
        #expect(!calls[2].isUnlimitedApproval)
        #expect(calls[0].calldata.count == 68)
    }

    @Test("Other selectors are not ERC-20; truncated or dirty arguments are refused")
    func refusals() throws {
        #expect(try ERC20Call(calldata: [0xDE, 0xAD, 0xBE, 0xEF]) == nil)
        #expect(try ERC20Call(calldata: []) == nil)
        let good = ERC20Call.transfer(to: Self.alice, amount: UInt256(1)).calldata
        #expect(throws: ABIError.wrongLength(expected: 68, actual: 67)) {
            try ERC20Call(calldata: Array(good.dropLast()))
        }
        var dirty = good
        dirty[4] = 1
        #expect(throws: ABIError.dirtyAddressWord) { try ERC20Call(calldata: dirty) }
    }
}
