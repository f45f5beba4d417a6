import Bitcoin
import BitcoinCrypto
import Signer
import Testing

@testable import Descriptors

/// Issue 33: the review's ownership proof takes the scripts of the keys the signer derived itself.
///
/// `DerivedScripts` replaces deriving each input's key again from the account xpub. The scripts must be exactly the
/// descriptors', and a recorded script is still compared with the coin's, never trusted.
@Suite("Derived scripts: the signer's own keys give the account descriptors' scripts")
struct DerivedScriptsTests {
    let fixture: ReviewFixture
    init() throws { fixture = try ReviewFixture() }

    /// The account's descriptor, the origin of child (`branch`, `index`), its key and (taproot) output key, derived
    /// privately from the master key as the signer derives them.
    func child(_ script: AccountScript, account: UInt32, branch: UInt32, index: UInt32) throws
        -> (Descriptor, KeyOrigin, PublicKey, XOnlyPublicKey?)
    {
        let key = try AccountKey(master: fixture.master, script: script, account: account, network: fixture.network)
        let descriptor = try #require(key.descriptor)
        let origin = try #require(key.addressOrigin(change: branch == 1, index: index))
        let derived = try fixture.master.derive(origin.path)
        let outputKey =
            script == .tr ? try TaprootKeyPair(internalKey: derived.privateKey, merkleRoot: nil).outputKey : nil
        return (descriptor, origin, derived.publicKey, outputKey)
    }

    @Test(
        "each single-key account type: the recorded script is the descriptor's at that child",
        arguments: [AccountScript.pkh, .shWpkh, .wpkh, .tr], [(UInt32(0), UInt32(0), UInt32(0)), (3, 1, 7)])
    func sameAsDescriptor(script: AccountScript, at: (account: UInt32, branch: UInt32, index: UInt32)) throws {
        let (descriptor, origin, key, outputKey) = try child(
            script, account: at.account, branch: at.branch, index: at.index)
        var derived = DerivedScripts()
        let made = derived.record(
            account: 2, descriptor: descriptor, branch: Int(at.branch), index: at.index, origin: origin, key: key,
            outputKey: outputKey)
        #expect(made)
        let recorded = try #require(derived.script(account: 2, branch: Int(at.branch), index: at.index))
        #expect(recorded == (try descriptor.scriptPubKey(at: at.index, path: Int(at.branch))))
        #expect(derived.script(account: 2, branch: Int(at.branch), index: at.index + 1) == nil)
    }

    @Test("nothing is recorded for another child's origin, a taproot key without its output key, or a multisig")
    func refusesWhatItCannotProve() throws {
        let (descriptor, origin, key, _) = try child(.wpkh, account: 0, branch: 0, index: 4)
        var derived = DerivedScripts()
        let recorded1 = derived.record(
            account: 0, descriptor: descriptor, branch: 0, index: 5, origin: origin, key: key)
        #expect(!recorded1)
        let recorded2 = derived.record(
            account: 0, descriptor: descriptor, branch: 1, index: 4, origin: origin, key: key)
        #expect(!recorded2)
        let (tr, trOrigin, trKey, _) = try child(.tr, account: 0, branch: 0, index: 4)
        let recorded3 = derived.record(account: 0, descriptor: tr, branch: 0, index: 4, origin: trOrigin, key: trKey)
        #expect(!recorded3)
        let cosigner = try AccountKey(
            master: fixture.master, script: .wshMulti, account: 0, network: fixture.network)
        let multisig = try Descriptor(string: "wsh(multi(1,\(cosigner.keyExpression)))")
        let recorded4 = derived.record(account: 0, descriptor: multisig, branch: 0, index: 4, origin: origin, key: key)
        #expect(!recorded4)
        #expect(derived.count == 0)
        // Control: the right child is recorded.
        let recorded5 = derived.record(
            account: 0, descriptor: descriptor, branch: 0, index: 4, origin: origin, key: key)
        #expect(recorded5)
        #expect(derived.count == 1)
    }

    @Test("a recorded script is compared with the coin's: the wrong key proves nothing; the right key proves ownership")
    func recordedScriptIsCompared() throws {
        let (descriptor, origin, key, _) = try child(.wpkh, account: 0, branch: 0, index: 4)
        let (_, _, otherKey, _) = try child(.wpkh, account: 0, branch: 0, index: 5)
        let coin = try descriptor.scriptPubKey(at: 4, path: 0)
        var wrong = DerivedScripts()
        wrong.record(account: 0, descriptor: descriptor, branch: 0, index: 4, origin: origin, key: otherKey)
        #expect(
            PSBTAnalysis.ownership(of: coin, claimed: [origin], accounts: [descriptor], derived: wrong)
                == .claimedButNotOurs)
        var right = DerivedScripts()
        right.record(account: 0, descriptor: descriptor, branch: 0, index: 4, origin: origin, key: key)
        #expect(
            PSBTAnalysis.ownership(of: coin, claimed: [origin], accounts: [descriptor], derived: right)
                == .ours(account: 0, branch: 0, index: 4))
        #expect(
            PSBTAnalysis.ownership(of: coin, claimed: [origin], accounts: [descriptor])
                == .ours(account: 0, branch: 0, index: 4))
    }
}
