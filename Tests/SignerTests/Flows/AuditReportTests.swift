import Testing

@testable import Signer

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
