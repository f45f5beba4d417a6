// FuzzDescriptor: text as an output descriptor (BIP380-390: checksum, keys and origins, multipath, musig, tr trees,
// miniscript inside wsh/tr) and as a bare miniscript in both contexts, then what a wallet does next: print it,
// parse the print again, derive the first scripts and addresses. Any trap is a bug; a print that does not parse back
// to the same print is one too.
import Bitcoin
import Descriptors

extension FuzzTargets {
    /// One input of FuzzDescriptor.
    public static func descriptor(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let descriptor = try? Descriptor(string: text) {
            let printed = descriptor.string(checksum: true)
            guard let again = try? Descriptor(string: printed, requireChecksum: true) else {
                preconditionFailure("a descriptor's own print does not parse")
            }
            precondition(again.string(checksum: true) == printed, "a descriptor's print changed on a second parse")
            for single in descriptor.singlePathDescriptors().prefix(2) {
                _ = try? single.scriptPubKeys(at: 0)
                _ = try? single.address(at: 1, network: .test)
                _ = single.miniscript.map { try? $0.script() }
                for leaf in single.tapLeafMiniscripts.prefix(4) { _ = try? leaf.script() }
            }
            _ = descriptor.network
        }
        for context in [MiniscriptContext.p2wsh, .tapscript] {
            guard let miniscript = try? Miniscript(string: text, context: context) else { continue }
            _ = try? miniscript.checkSane()
            _ = try? miniscript.script()
            _ = miniscript.policyDescription()
            let printed = miniscript.description
            guard let again = try? Miniscript(string: printed, context: context) else {
                preconditionFailure("a miniscript's own print does not parse")
            }
            precondition(again.description == printed, "a miniscript's print changed on a second parse")
        }
    }
}
