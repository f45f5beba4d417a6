import Bitcoin
import BitcoinCrypto
import Codecs
import Foundation
import MessageSigning

/// BIP129 round 1: a signer's key record, `BSMS 1.0`, the token, `[fp/path]KEY`, a description (≤ 80 characters)
/// and a signature of the first four lines (the legacy `signmessage` format, with the key's own private key).
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0129.mediawiki#round-1
public struct BSMSKeyRecord: Sendable, Equatable {
    public let token: BSMSToken
    /// `[fp/path]xpub` or `[fp/path]pubkey`.
    public let key: String
    public let keyDescription: String
    /// Base64 signature.
    public let signature: String

    /// The first four lines, which the signature covers (joined by LF).
    public static func signedText(token: BSMSToken, key: String, description: String) -> String {
        ["BSMS 1.0", token.hexString, key, description].joined(separator: "\n")
    }

    /// Makes a record, signing with `privateKey` (whose public key is the record's key).
    ///
    /// - Throws: `BSMSError.malformedRecord` for a description over 80 characters or with a line break.
    public init(token: BSMSToken, key: String, description: String, privateKey: PrivateKey) throws(BSMSError) {
        guard description.count <= 80, !description.contains(where: \.isNewline) else {
            throw .malformedRecord("the key description must be one line of at most 80 characters")
        }
        let text = Self.signedText(token: token, key: key, description: description)
        let signature: [UInt8]
        do { signature = try LegacyMessage.sign(Array(text.utf8), key: privateKey, kind: .p2pkh) } catch {
            throw .invalidSignature(String(describing: error))
        }
        self.token = token
        self.key = key
        self.keyDescription = description
        self.signature = Base64.encode(signature)
    }

    /// The record's five lines.
    public var text: String {
        Self.signedText(token: token, key: key, description: keyDescription) + "\n" + signature
    }
}

/// BIP129 round 2: the coordinator's descriptor record, `BSMS 1.0`, a descriptor or template (`/**`), the path
/// restrictions (`/0/*,/1/*` or `No path restrictions`) and the wallet's first address.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0129.mediawiki#round-2
public struct BSMSDescriptorRecord: Sendable, Equatable {
    /// The descriptor line as given.
    public let template: String
    /// The restrictions (`["/0/*", "/1/*"]`), empty for none.
    public let restrictions: [String]
    /// The fourth line.
    public let firstAddress: String

    /// Parses the four lines (trailing white space ignored).
    ///
    /// - Throws: `BSMSError.malformedRecord`.
    public init(text: String) throws(BSMSError) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "\r", with: "") }
        let content = Array(lines.reversed().drop(while: \.isEmpty).reversed())
        guard content.count == 4 else {
            throw .malformedRecord("a descriptor record has 4 lines, not \(content.count)")
        }
        guard content[0] == "BSMS 1.0" else { throw .malformedRecord("the first line is not 'BSMS 1.0'") }
        template = content[1]
        if content[2] == "No path restrictions" {
            restrictions = []
        } else {
            restrictions = content[2].split(separator: ",").map { String($0) }
            guard !restrictions.isEmpty,
                restrictions.allSatisfy({ $0.hasPrefix("/") && !$0.contains("'") && !$0.contains("h") })
            else { throw .malformedRecord("path restrictions must start with / and be unhardened: \(content[2])") }
        }
        firstAddress = content[3]
        if template.contains("/**"), restrictions.isEmpty {
            throw .malformedRecord("a descriptor template (/**) needs path restrictions")
        }
    }

    /// The descriptor to register: the template with `/**` replaced by `/<0;1>/*` when the restrictions are
    /// exactly `/0/*,/1/*` (receive and change), by the one restriction when there is one, else as given.
    ///
    /// - Throws: `BSMSError.invalidDescriptor` for other restrictions (not supported here) or a bad descriptor.
    public func descriptor() throws(BSMSError) -> Descriptor {
        let text: String
        if !template.contains("/**") {
            text = template
        } else if restrictions == ["/0/*", "/1/*"] {
            text = template.replacingOccurrences(of: "/**", with: "/<0;1>/*")
        } else if restrictions.count == 1 {
            text = template.replacingOccurrences(of: "/**", with: restrictions[0])
        } else {
            throw .invalidDescriptor("path restrictions other than /0/*,/1/* or a single path: \(restrictions)")
        }
        do { return try Descriptor(string: text) } catch { throw .invalidDescriptor(String(describing: error)) }
    }

    /// Checks the first address against the descriptor (index 0 of the first restriction) and returns it.
    ///
    /// - Throws: `BSMSError.addressMismatch`, `.invalidDescriptor`.
    public func checkedFirstAddress(network: Network) throws(BSMSError) -> Address {
        let computed: Address
        do { computed = try descriptor().address(at: 0, path: 0, network: network) } catch let error as BSMSError {
            throw error
        } catch { throw .invalidDescriptor(String(describing: error)) }
        guard computed.description == firstAddress else {
            throw .addressMismatch(record: firstAddress, computed: computed.description)
        }
        return computed
    }
}
