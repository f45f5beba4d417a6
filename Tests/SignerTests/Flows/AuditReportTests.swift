import Ethereum
import Testing

@testable import Signer
@testable import SignerReports

/// `audit --verify`: what the user is told about a journal that verified (`AuditVerification.notes`).
@Suite("Audit report")
struct AuditReportTests {
    @Test("an unanchored journal, legacy entries and entries beyond the head each get a note; a clean journal none")
    func notes() {
        let clean = AuditVerification(entries: 3, keyed: 3, legacy: 0, anchored: true, beyondAnchor: 0)
        #expect(clean.notes.isEmpty)
        #expect(clean.summary(path: "j") == "j: 3 entries, chain intact and authentic")
        let old = AuditVerification(entries: 1, keyed: 0, legacy: 1, anchored: false, beyondAnchor: 0)
        #expect(old.notes.count == 2)
        #expect(old.notes[0].hasPrefix("the vault does not record the log's head yet"))
        #expect(old.notes[1] == "1 entry of the older unkeyed format")
        let mixed = AuditVerification(entries: 4, keyed: 2, legacy: 2, anchored: true, beyondAnchor: 1)
        #expect(
            mixed.notes == [
                "2 entries of the older unkeyed format (protected by the keyed entries after them)",
                "1 authentic entry after the head the vault records (an interrupted signature; the next one anchors it)",
            ])
        #expect(old.summary(path: "j") == "j: 1 entry, chain intact and authentic")
    }
}

/// `token add`'s review (`EthereumToken.additionReview`): a token at a built-in contract is flagged.
@Suite("Token addition review")
struct TokenAdditionReviewTests {
    @Test("a token at the built-in DAI contract is warned about; a token at another contract is not")
    func shadowsBuiltIn() throws {
        let shadow = try EthereumToken(
            chainID: 1, address: "0x6B175474E89094C44Da98b954EedeAC495271d0F", symbol: "FAKE", decimals: 6)
        #expect(shadow.shadowedBuiltIn?.symbol == "DAI")
        #expect(
            shadow.additionReview.hasSuffix(
                "!!! the built-in list names this contract DAI with 18 decimals; the added entry is used first"))
        // Control: the same contract on another chain, and another contract on chain 1.
        let otherChain = try EthereumToken(
            chainID: 10, address: "0x6B175474E89094C44Da98b954EedeAC495271d0F", symbol: "FAKE", decimals: 6)
        #expect(otherChain.shadowedBuiltIn == nil && !otherChain.additionReview.contains("!!!"))
        let fresh = try EthereumToken(
            chainID: 1, address: "0x1111111111111111111111111111111111111111", symbol: "NEW", decimals: 2)
        #expect(fresh.additionReview == "Token: NEW, 2 decimals\nContract: \(fresh.address.checksummed)\nChain: 1")
    }
}
