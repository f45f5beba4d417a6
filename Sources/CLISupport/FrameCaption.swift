import AirgapTransport
import Bitcoin
import Chance
import Foundation
import QRImage

/// The text under a QR frame (docs/DESIGN section 11, "Frame captions"): `Airlock · <what> <short id> · <k> of <n>`,
/// or `Airlock · <what> <short id>` for a single code, then any detail lines (an invoice's address and amount).
///
/// The short id is the first 4 bytes in hex of what names the payload: a PSBT's or transaction's txid, an account's
/// master fingerprint, an Ethereum request's id. Frames shown on a screen or printed can so be told apart and put in
/// order by eye.
public struct FrameCaption: Sendable, Equatable {
    /// What the frames carry, such as "PSBT request", "signed PSBT", "account", "invoice" or "eth request".
    public var what: String
    /// 8 hex digits naming the payload, when it has a name.
    public var shortID: String?
    /// Lines under the first (an address in groups of four, an amount).
    public var details: [String]

    public init(what: String, shortID: String? = nil, details: [String] = []) {
        self.what = what
        self.shortID = shortID
        self.details = details
    }

    /// The first line: `Airlock · what id · k of n` (`part` counts from 1; no part suffix when `count` is 1).
    public func line(part: Int, of count: Int) -> String {
        var text = "Airlock · " + what + (shortID.map { " " + $0 } ?? "")
        if count > 1 { text += " · \(part) of \(count)" }
        return text
    }

    /// Every line under frame `part` of `count`.
    public func lines(part: Int, of count: Int) -> [String] { [line(part: part, of: count)] + details }

    /// An address cut in groups of four characters, as hardware wallets show one to be checked by eye.
    public static func grouped(_ address: String) -> String {
        var groups: [String] = []
        var rest = Substring(address)
        while !rest.isEmpty {
            groups.append(String(rest.prefix(4)))
            rest = rest.dropFirst(4)
        }
        return groups.joined(separator: " ")
    }

    /// The first 4 bytes of `bytes` in hex.
    static func short(_ bytes: [UInt8]?) -> String? {
        guard let bytes, !bytes.isEmpty else { return nil }
        return TextCodec.hexString(Array(bytes.prefix(4)))
    }

    /// The master fingerprint of the first key origin (`[d34db33f/…]`) in descriptor text.
    static func fingerprint(inDescriptor text: String) -> String? {
        guard let open = text.firstIndex(of: "[") else { return nil }
        let hex = text[text.index(after: open)...].prefix(8)
        guard hex.count == 8, hex.allSatisfy(\.isHexDigit) else { return nil }
        return hex.lowercased()
    }

    /// The caption of an invoice: the address in groups of four and the amount, when one is asked for.
    public static func invoice(address: String, amount: String?, label: String? = nil) -> FrameCaption {
        var details = [grouped(address)]
        if let amount { details.append(amount) }
        if let label { details.append(QRCode.drawableCaption(DisplayText.clean(label))) }
        return FrameCaption(what: "invoice", details: details)
    }

    /// The caption a payload gets when its command names none.
    public static func describing(_ payload: Payload) -> FrameCaption {
        switch payload {
        case .psbt(let bytes):
            guard let psbt = try? PSBT(serialized: bytes) else { return FrameCaption(what: "PSBT") }
            let signed = psbt.inputs.contains { input in
                input.isFinalized || input.tapKeySignature != nil || !input.partialSignatures.isEmpty
                    || !input.tapScriptSignatures.isEmpty
            }
            let txid = (try? psbt.unsignedTxid()).map { String($0.hexString.prefix(8)) }
            return FrameCaption(what: signed ? "signed PSBT" : "PSBT request", shortID: txid)
        case .transaction(let bytes):
            var reader = ByteReader(bytes)
            let txid = (try? Transaction(from: &reader)).map { String($0.txid.hexString.prefix(8)) }
            return FrameCaption(what: "transaction", shortID: txid)
        case .cryptoAccount(let account):
            return FrameCaption(what: "account", shortID: account.masterFingerprint.description)
        case .descriptor(let text):
            return FrameCaption(what: "account", shortID: fingerprint(inDescriptor: text))
        case .accountDescriptor(let account):
            return FrameCaption(what: "account", shortID: account.masterFingerprint.description)
        case .outputDescriptor(let output):
            return FrameCaption(what: "account", shortID: fingerprint(inDescriptor: output.source))
        case .cryptoOutput:
            return FrameCaption(what: "account")
        case .hdKey(let key):
            let fingerprint = key.origin?.sourceFingerprint ?? key.parentFingerprint
            return FrameCaption(what: "eth account", shortID: fingerprint?.description)
        case .ethSignRequest(let request):
            return FrameCaption(what: "eth request", shortID: short(request.requestID))
        case .ethSignature(let signature):
            return FrameCaption(what: "eth signature", shortID: short(signature.requestID))
        case .address(let address):
            return FrameCaption(what: "address", details: [grouped(address)])
        case .bip21(let uri):
            return invoice(
                address: uri.address, amount: uri.amount.map { (try? Amount(sats: $0.sats))?.description ?? "" },
                label: uri.label)
        case .chanceMultisig(let text):
            let txid = (try? ChanceMultisig(string: text)).map { String($0.transaction.txid.hexString.prefix(8)) }
            return FrameCaption(what: "multisig request", shortID: txid)
        case .json, .text, .bytes:
            return FrameCaption(what: "data")
        }
    }
}
