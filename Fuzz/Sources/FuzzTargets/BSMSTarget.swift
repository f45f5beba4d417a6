// FuzzBSMS: text as the signer's `multisig register` reads it (`MultisigRegistration(text:token:name:)`: a BIP129
// BSMS descriptor record, plain or encrypted with a token, a Coldcard wallet file, or a descriptor line), and a BSMS
// record's first-address check. Any trap is a bug.
import Bitcoin
import Descriptors
import Signer

extension FuzzTargets {
    /// The BIP129 test vectors' token (16 bytes), so that records encrypted with it reach the decryption.
    static let bsmsToken = "a54044308ceac9b7"

    /// One input of FuzzBSMS.
    public static func bsms(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        _ = try? MultisigRegistration(text: text, token: nil, name: nil)
        _ = try? MultisigRegistration(text: text, token: bsmsToken, name: nil)
        if let record = try? BSMSDescriptorRecord(text: text) {
            for network in Network.allCases { _ = try? record.checkedFirstAddress(network: network) }
        }
    }
}
