import Foundation
import TestSupport
import Testing

@testable import AirgapTransport

/// Deterministic test data: Xoshiro256** seeded with `seed` (the bc-ur test convention).
func testData(_ count: Int, seed: String = "Airlock") -> [UInt8] {
    var rng = Xoshiro256(string: seed)
    return rng.nextData(count)
}

/// A PSBT-looking payload: the magic followed by pseudo-random bytes (the transport never parses PSBTs).
func fakePSBT(_ count: Int) -> [UInt8] { PayloadDecoder.psbtMagic + testData(max(count - 5, 1)) }

@Suite("Fountain recovery (BCR-2024-001 multi-part UR)")
struct FountainRecoveryTests {
    @Test("20% of parts lost and the rest shuffled: the decoder still completes", arguments: [1_000, 12_345, 60_000])
    func lossyShuffled(length: Int) throws {
        let ur = try UR(type: "crypto-psbt", cbor: CBOR.bytes(fakePSBT(length)).serialized())
        var encoder = try UREncoder(ur: ur, maxFragmentLength: 200)
        // Emit 3 × seqLen parts; drop every fifth; shuffle deterministically.
        let emitted = (0..<(encoder.seqLen * 3)).map { _ in encoder.nextPart() }
        var kept = emitted.enumerated().filter { $0.offset % 5 != 0 }.map(\.element)
        var rng = Xoshiro256(string: "shuffle-\(length)")
        kept = FountainUtilities.shuffled(kept, rng: &rng)
        var decoder = PayloadDecoder(expecting: [.psbt])
        var used = 0
        for part in kept where !decoder.isComplete {
            try decoder.receive(part.uppercased())
            used += 1
            if !decoder.isComplete { #expect((decoder.progress?.fraction ?? 1) < 1) }
        }
        let result = try decoder.result()
        #expect(result.payload == .psbt(fakePSBT(length)))
        #expect(result.format == .ur)
        #expect(used <= kept.count)
    }

    @Test("Duplicates are ignored and progress names the missing fragments")
    func duplicatesAndProgress() throws {
        let ur = try UR(type: "bytes", cbor: CBOR.bytes(testData(1000)).serialized())
        let parts = try FrameEncoder(urMaxFragmentLength: 100, urExtraParts: 0).urParts(ur)
        #expect(parts.count == 11)
        var decoder = PayloadDecoder()
        for part in [parts[0], parts[0], parts[2], parts[2]] { try decoder.receive(part) }
        let progress = try #require(decoder.progress)
        #expect(progress.receivedParts == 2)
        #expect(progress.totalParts == 11)
        #expect(progress.missingParts == [2] + Array(4...11))
        #expect(progress.missingIsEstimate)
        #expect(throws: PayloadError.self) { try decoder.result() }
    }
}

@Suite("Frame splitting and joining (UR, BBQr, base64, Specter)")
struct FrameRoundTripTests {
    static let sizes = [10, 100, 1_000, 2_000, 10_000, 50_000, 200_000]

    @Test("UR: PSBTs from 10 B to 200 KB round-trip as crypto-psbt and psbt", arguments: sizes)
    func ur(size: Int) throws {
        let psbt = fakePSBT(size)
        for type in ["crypto-psbt", "psbt"] {
            let frames = try FrameEncoder(urPSBTType: type).frames(for: .psbt(psbt), format: .ur)
            #expect(frames.allSatisfy { $0.hasPrefix("UR:\(type.uppercased())/") && $0 == $0.uppercased() })
            let result = try PayloadDecoder.decode(frames.reversed(), expecting: [.psbt])
            #expect(result.payload == .psbt(psbt))
        }
    }

    @Test("BBQr: PSBTs and text from 10 B to 200 KB round-trip in H, 2 and Z", arguments: sizes)
    func bbqr(size: Int) throws {
        let psbt = fakePSBT(size)
        let text = String(repeating: "wpkh([37b5eed4/84h/0h/0h]xpub/<0;1>/*)\n", count: size / 40 + 1)
        for encoding in BBQr.Encoding.allCases {
            let encoder = FrameEncoder(bbqr: BBQrSplitter(encoding: encoding))
            let frames = try encoder.frames(for: .psbt(psbt), format: .bbqr)
            #expect(try PayloadDecoder.decode(frames.shuffled()).payload == .psbt(psbt))
            let textFrames = try encoder.frames(for: .descriptor(text), format: .bbqr)
            #expect(try PayloadDecoder.decode(textFrames).payload == .descriptor(text.trimmingWhitespace()))
        }
    }

    @Test("base64: one code up to the version-40 limit, refused above", arguments: sizes)
    func base64(size: Int) throws {
        let psbt = fakePSBT(size)
        let encoded = TextCodec.base64String(psbt)
        if encoded.utf8.count <= FrameEncoder.singleCodeByteLimit {
            let frames = try FrameEncoder().frames(for: .psbt(psbt), format: .base64)
            #expect(frames == [encoded])
            #expect(try PayloadDecoder.decode(frames).payload == .psbt(psbt))
            #expect(try PayloadDecoder.decode(frames).format == .base64)
        } else {
            #expect(throws: PayloadError.doesNotFitOneCode(characters: encoded.utf8.count, limit: 2953)) {
                try FrameEncoder().frames(for: .psbt(psbt), format: .base64)
            }
        }
    }

    @Test("Specter pMofN: base64 PSBT split in 3, any order, duplicates")
    func specter() throws {
        let psbt = fakePSBT(700)
        let frames = try FrameEncoder(urMaxFragmentLength: 200).frames(for: .psbt(psbt), format: .specter)
        #expect(frames.count == 3)
        #expect(frames[0].hasPrefix("p1of3 cHNidP"))
        let result = try PayloadDecoder.decode([frames[2], frames[0], frames[2], frames[1]])
        #expect(result.payload == .psbt(psbt))
        #expect(result.format == .specter)
    }
}

@Suite("Payload detection")
struct PayloadDetectionTests {
    @Test(
        "Single codes are classified",
        arguments: [
            ("bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", PayloadKind.address),
            ("BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ", .address),
            ("tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx", .address),
            ("1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", .address),
            ("bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?amount=0.001", .bip21),
            (
                "wpkh([37b5eed4/84h/0h/0h]"
                    + "xpub6BkU445MSEBXbPjD3g2c2ch6mn8yy1SXXQUM7EwjgYiq6Wt1NDwD"
                    + "Z45npqWcV8uQC5oi2gHuVukoCoZZyT4HKq8EpotPMqGqxdZRuapCQ23/<0;1>/*)",
                .descriptor
            ),
            (
                "[37b5eed4/84h/0h/0h]"
                    + "xpub6BkU445MSEBXbPjD3g2c2ch6mn8yy1SXXQUM7EwjgYiq6Wt1NDwD"
                    + "Z45npqWcV8uQC5oi2gHuVukoCoZZyT4HKq8EpotPMqGqxdZRuapCQ23",
                .descriptor
            ),
            ("{\"xfp\": \"37B5EED4\"}", .json),
            ("hello world", .text),
            ("cHNidP8BAAoCAAAAAAAAAAAAAAAA", .psbt),
            ("70736274ff0100", .psbt),
        ])
    func classify(text: String, kind: PayloadKind) throws {
        #expect(try PayloadDecoder.decode([text]).payload.kind == kind)
    }

    @Test("Text whose lower-case form is longer than itself is plain text, not a crash")
    func unicodeText() throws {
        #expect(try PayloadDecoder.decode(["İİİ1qqqqqqqqqqqqqqqqq"]).payload == .text("İİİ1qqqqqqqqqqqqqqqqq"))
    }

    @Test("Transactions in hex and Electrum base43; binary PSBT bytes")
    func transactionAndBinary() throws {
        let tx: [UInt8] = [2, 0, 0, 0] + testData(200)
        #expect(try PayloadDecoder.decode([TextCodec.hexString(tx)]).payload == .transaction(tx))
        let base43 = TextCodec.base43String(tx)
        #expect(try TextCodec.bytes(base43: base43) == tx)
        #expect(try PayloadDecoder.decode([base43]) == (.transaction(tx), .base43))
        let psbt = fakePSBT(300)
        #expect(try PayloadDecoder.decode([TextCodec.base43String(psbt)]).payload == .psbt(psbt))
        var decoder = PayloadDecoder()
        try decoder.receive(bytes: psbt)
        #expect(try decoder.result() == (.psbt(psbt), .binary))
    }

    @Test("Electrum base43 keeps leading zero bytes")
    func base43Zeros() throws {
        let data: [UInt8] = [0, 0, 1, 2, 255]
        #expect(try TextCodec.bytes(base43: TextCodec.base43String(data)) == data)
        #expect(TextCodec.base43String([0, 0]) == "00")
        #expect(throws: TextEncodingError.invalidCharacter(encoding: "base43", offset: 1)) {
            try TextCodec.bytes(base43: "0a")
        }
    }

    @Test("UR registry payloads arrive typed")
    func urTyped() throws {
        let example = try #require(try URRegistryExample.all().first { $0.urType == "crypto-account" })
        let result = try PayloadDecoder.decode([try #require(example.ur).uppercased()], expecting: [.cryptoAccount])
        guard case .cryptoAccount(let account) = result.payload else { throw PayloadError.empty }
        #expect(account.outputs.count == 7)
        // Re-export through the frame encoder and back.
        let frames = try FrameEncoder(urMaxFragmentLength: 100).frames(for: result.payload, format: .ur)
        #expect(frames.count > 1)
        #expect(try PayloadDecoder.decode(frames).payload == result.payload)
    }
}

@Suite("Payload bad input")
struct PayloadBadInputTests {
    @Test("A UR of the wrong type for the caller is refused at its first part")
    func wrongURType() throws {
        let frames = try FrameEncoder(urMaxFragmentLength: 50).frames(for: .psbt(fakePSBT(500)), format: .ur)
        var decoder = PayloadDecoder(expecting: [.cryptoAccount, .descriptor])
        #expect(throws: PayloadError.unexpectedKind(expected: [.cryptoAccount, .descriptor], actual: .psbt)) {
            try decoder.receive(frames[0])
        }
        #expect(throws: PayloadError.unexpectedKind(expected: [.psbt], actual: .address)) {
            try PayloadDecoder.decode(["bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"], expecting: [.psbt])
        }
    }

    @Test("Parts of two UR payloads, two BBQr payloads or two single codes are a mixedPayloads error")
    func mixed() throws {
        let a = try FrameEncoder(urMaxFragmentLength: 50).frames(for: .psbt(fakePSBT(500)), format: .ur)
        let b = try FrameEncoder(urMaxFragmentLength: 50).frames(for: .psbt(fakePSBT(600)), format: .ur)
        var ur = PayloadDecoder()
        try ur.receive(a[0])
        #expect { try ur.receive(b[1]) } throws: { error in
            if case PayloadError.mixedPayloads = error { return true } else { return false }
        }
        let c = try FrameEncoder(bbqr: BBQrSplitter(versions: 5...5)).frames(for: .psbt(fakePSBT(900)), format: .bbqr)
        let d = try FrameEncoder(bbqr: BBQrSplitter(versions: 6...6)).frames(for: .psbt(fakePSBT(900)), format: .bbqr)
        #expect(c.count != d.count)
        var bbqr = PayloadDecoder()
        try bbqr.receive(c[0])
        #expect { try bbqr.receive(d[1]) } throws: { error in
            if case PayloadError.mixedPayloads = error { return true } else { return false }
        }
        #expect { try bbqr.receive(a[0]) } throws: { error in
            if case PayloadError.mixedPayloads = error { return true } else { return false }
        }
        #expect {
            try PayloadDecoder.decode([
                "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2",
            ])
        } throws: { error in
            if case PayloadError.mixedPayloads = error { return true } else { return false }
        }
        // The same single code twice is fine.
        let same = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"
        #expect(try PayloadDecoder.decode([same, same + "\n"]).payload == .address(same))
    }

    @Test(
        "Garbage and truncated UR strings are typed errors",
        arguments: [
            "ur:", "ur:bytes", "ur:bytes/", "ur:by tes/aeadaolazmjendeoti", "ur:bytes/1-0/aeadaolazmjendeoti",
            "ur:bytes/0-3/aeadaolazmjendeoti", "ur:bytes/x-3/aeadaolazmjendeoti", "ur:bytes/aeadaolazmjendeotz",
            "ur:bytes/1-2/3/aeadaolazmjendeoti", "ur:bytes/1-9/lpadascfadaxcywenbpljkhdcahkadaemejtswhhylkep",
            "ur:seed/oyadgdstaslplabghydrpfmkbggufgludprfgmamdpwmox", "ur:psbt/aeadaolazmjendeoti",
        ])
    func garbageUR(text: String) throws {
        #expect(throws: PayloadError.self) { try PayloadDecoder.decode([text]) }
    }

    @Test("Truncated CBOR in a complete single-part UR is a CBOR error")
    func truncatedCBOR() throws {
        // A byte string header claiming 50 bytes followed by 10.
        let ur = try UR(type: "crypto-psbt", cbor: [0x58, 50] + testData(10))
        #expect(throws: PayloadError.ur(.cbor(.lengthTooLarge(offset: 0, length: 50)))) {
            try PayloadDecoder.decode([ur.string])
        }
    }

    @Test("Empty input, bad BIP21 URIs")
    func others() throws {
        #expect(throws: PayloadError.empty) { try PayloadDecoder.decode([]) }
        #expect(throws: PayloadError.empty) { try PayloadDecoder.decode(["  \n"]) }
        #expect(throws: PayloadError.bip21(.unknownRequiredParameter("req-somethingnew"))) {
            try PayloadDecoder.decode(["bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?req-somethingnew=1"])
        }
    }
}

@Suite("BIP21 URIs (BIP-21)")
struct BIP21Tests {
    /// BIP21's examples use 175tWpb8K1S7NmH4Zx6rewF9WQrcZv245W, whose base58check checksum is wrong (embit and
    /// Bitcoin Core reject it too); the examples are run with a valid mainnet address in its place.
    static let address = "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2"

    @Test("The BIP's own example address is refused: its checksum is wrong")
    func bipExampleAddressChecksum() {
        #expect(throws: BIP21Error.invalidAddress("175tWpb8K1S7NmH4Zx6rewF9WQrcZv245W")) {
            try BIP21URI(string: "bitcoin:175tWpb8K1S7NmH4Zx6rewF9WQrcZv245W")
        }
    }

    @Test("The BIP's examples parse")
    func bipExamples() throws {
        let a = try BIP21URI(string: "bitcoin:\(Self.address)")
        #expect(a.address == Self.address && a.amount == nil && a.label == nil)
        let b = try BIP21URI(string: "bitcoin:\(Self.address)?label=Luke-Jr")
        #expect(b.label == "Luke-Jr")
        let c = try BIP21URI(string: "bitcoin:\(Self.address)?amount=20.3&label=Luke-Jr")
        #expect(c.amount?.sats == 2_030_000_000)
        let d = try BIP21URI(
            string: "bitcoin:\(Self.address)?amount=50&label=Luke-Jr&message=Donation%20for%20project%20xyz")
        #expect(d.amount?.sats == 5_000_000_000)
        #expect(d.message == "Donation for project xyz")
        let e = try BIP21URI(
            string: "BITCOIN:\(Self.address)?somethingyoudontunderstand=50&somethingelseyoudontget=999")
        #expect(e.otherParameters.map(\.name) == ["somethingyoudontunderstand", "somethingelseyoudontget"])
        #expect(throws: BIP21Error.unknownRequiredParameter("req-somethingyoudontunderstand")) {
            try BIP21URI(
                string: "bitcoin:\(Self.address)?req-somethingyoudontunderstand=50&req-somethingelseyoudontget=999")
        }
    }

    @Test("Amounts: 8 decimals at most, no signs or exponents, within 21M BTC")
    func amounts() throws {
        #expect(try BIP21URI.parseAmount("0.00000001").sats == 1)
        #expect(try BIP21URI.parseAmount(".5").sats == 50_000_000)
        #expect(try BIP21URI.parseAmount("21000000").sats == 2_100_000_000_000_000)
        for bad in ["", ".", "1.000000001", "-1", "1e3", "21000000.00000001", "1.2.3", "１"] {
            #expect(throws: BIP21Error.invalidAmount(bad)) { try BIP21URI.parseAmount(bad) }
        }
    }

    @Test("Bad URIs")
    func bad() throws {
        #expect(throws: BIP21Error.invalidAddress("notanaddress")) { try BIP21URI(string: "bitcoin:notanaddress") }
        #expect(throws: BIP21Error.duplicateParameter("amount")) {
            try BIP21URI(string: "bitcoin:\(Self.address)?amount=1&amount=2")
        }
        #expect(throws: BIP21Error.invalidPercentEncoding("Luke%2")) {
            try BIP21URI(string: "bitcoin:\(Self.address)?label=Luke%2")
        }
        #expect(throws: BIP21Error.notBitcoinURI) { try BIP21URI(string: "litecoin:\(Self.address)") }
    }
}

@Suite("Chance multisig: texts as a payload kind (docs/architecture.md section 3)")
struct ChanceMultisigPayloadTests {
    static let text = #"multisig:{"rawTx":"02000000","redeemScriptHex":"51","keySignatures":{}}"#

    @Test("A multisig: text is recognised by its prefix (surrounding whitespace ignored), in one QR code or BBQr")
    func detected() throws {
        let decoded = try PayloadDecoder.decode(["  " + Self.text + "\n"], expecting: [.chanceMultisig])
        #expect(decoded.payload == .chanceMultisig(Self.text))
        #expect(decoded.payload.kind == .chanceMultisig && PayloadKind.chanceMultisig.rawValue == "chance-multisig")
        let frames = try FrameEncoder().frames(for: .chanceMultisig(Self.text), format: .bbqr)
        #expect(try PayloadDecoder.decode(frames).payload == .chanceMultisig(Self.text))
        #expect(try FrameEncoder().frames(for: .chanceMultisig(Self.text), format: .plain) == [Self.text])
    }

    @Test("Other text with the word inside, or JSON alone, is not a multisig: text")
    func notDetected() throws {
        #expect(try PayloadDecoder.decode(["my multisig: notes"]).payload == .text("my multisig: notes"))
        let json = #"{"rawTx":"02000000"}"#
        #expect(try PayloadDecoder.decode([json]).payload == .json(json))
    }
}
