import Bitcoin
import BitcoinCrypto
import Descriptors
import Foundation
import Testing

@testable import Signer

/// `multisig register`'s flow (`MultisigRegistration`): the wallet text read in each form, and the own-keys rule
/// with `--allow-own-keys` as its control.
@Suite("Multisig registration")
struct MultisigRegistrationTests {
    static func descriptor(ownTwice: Bool) throws -> String {
        let me = try RegistrationPathsTests.master()
        let mine = try RegistrationPathsTests.key(me, "m/48h/1h/0h/2h")
        let second =
            ownTwice
            ? try RegistrationPathsTests.key(me, "m/48h/1h/1h/2h")
            : try RegistrationPathsTests.key(RegistrationPathsTests.stranger(8), "m/48h/1h/0h/2h")
        let other = try RegistrationPathsTests.key(RegistrationPathsTests.stranger(9), "m/48h/1h/0h/2h")
        return "wsh(sortedmulti(2,\(mine),\(second),\(other)))"
    }

    @Test(
        "two keys of this vault are refused (nothing to register) unless --allow-own-keys, which the review then names")
    func ownKeys() throws {
        let master = try RegistrationPathsTests.master()
        let both = try MultisigRegistration(text: Self.descriptor(ownTwice: true), token: nil, name: "w")
        let refused = try both.review(master: master, network: .regtest, allowOwnKeys: false)
        #expect(refused.refusals.count == 1 && refused.refusals[0].hasPrefix("not registered: "))
        #expect(refused.refusals[0].hasSuffix("pass --allow-own-keys to register it anyway; nothing stored"))
        let allowed = try both.review(master: master, network: .regtest, allowOwnKeys: true)
        #expect(allowed.refusals.isEmpty && allowed.text.contains("registered anyway (--allow-own-keys)"))
        // Control: one key of this vault is neither refused nor flagged.
        let plain = try MultisigRegistration(text: Self.descriptor(ownTwice: false), token: nil, name: nil)
        let review = try plain.review(master: master, network: .regtest, allowOwnKeys: false)
        #expect(review.refusals.isEmpty && !review.text.contains("--allow-own-keys"))
        #expect(plain.wallet.name == "multisig" && plain.bsms == nil)
    }

    @Test("a descriptor's first line is read, the rest ignored; a line that is no descriptor is refused")
    func descriptorText() throws {
        let text = try Self.descriptor(ownTwice: false) + "\nsomething else"
        let registration = try MultisigRegistration(text: text, token: nil, name: "mine")
        #expect(registration.wallet.name == "mine")
        #expect(throws: (any Error).self) { try MultisigRegistration(text: "not a descriptor", token: nil, name: nil) }
    }

    @Test("a BSMS 1.0 record gives the wallet its descriptor and the review its checked first address")
    func bsmsRecord() throws {
        let descriptor = try Self.descriptor(ownTwice: false)
        let address = try Descriptor(string: descriptor).address(at: 0, path: 0, network: .regtest).description
        let template = descriptor.replacingOccurrences(of: "/<0;1>/*", with: "/**")
        let record = "BSMS 1.0\n\(template)\n/0/*,/1/*\n\(address)"
        let registration = try MultisigRegistration(text: record, token: nil, name: nil)
        #expect(registration.wallet.name == "bsms" && registration.bsms != nil)
        let review = try registration.review(
            master: RegistrationPathsTests.master(), network: .regtest, allowOwnKeys: false)
        #expect(review.text.contains("first address: \(address)  (checked: the descriptor gives the same)"))
        // A record whose address is not the descriptor's is refused.
        let wrong = try Descriptor(string: Self.descriptor(ownTwice: true)).address(at: 0, path: 0, network: .regtest)
        let forged = try MultisigRegistration(
            text: "BSMS 1.0\n\(template)\n/0/*,/1/*\n\(wrong)", token: nil, name: nil)
        #expect(throws: (any Error).self) {
            try forged.review(master: RegistrationPathsTests.master(), network: .regtest, allowOwnKeys: false)
        }
    }
}
