import Foundation
import TestSupport
import Testing

@testable import AirgapTransport

/// The expected values of BlockchainCommons/bc-ur `test/test.cpp`, restated in
/// Tests/Vectors/bcur/bc_ur_reference_test_vectors.json; every case of every group runs.
@Suite("BC-UR reference (bc-ur test.cpp)")
struct BCURReferenceVectorTests {
    static let file = "bcur/bc_ur_reference_test_vectors.json"

    static func vectors() throws -> [String: Any] {
        let root = try #require(try Vectors.anyJSON(file) as? [String: Any])
        return try #require(root["vectors"] as? [String: Any])
    }

    static func makeMessage(_ length: Int, seed: String = "Wolf") -> [UInt8] {
        var rng = Xoshiro256(string: seed)
        return rng.nextData(length)
    }

    /// make_message's bytes as upstream pins them (the file's `derived_messages` are ours, so they are not used): the
    /// partition_message fragments are make_message(1024) cut in order, and the fountain encoder's first seq_len parts
    /// are make_message(256) cut in order, with its CRC32 in every part's checksum.
    @Test("make_message matches upstream's partition and fountain-encoder vectors (1024 and 256 bytes)")
    func makeMessage() throws {
        let partition = try #require(try Self.vectors()["partition_message"] as? [String: Any])
        let fragments = try #require(partition["fragments_hex"] as? [String])
        let length1024 = try #require(partition["message_len"] as? Int)
        #expect(length1024 == 1024)
        #expect(Self.makeMessage(1024) == Array(fragments.flatMap(TestHex.bytes).prefix(length1024)))

        let encoder = try #require(try Self.vectors()["fountain_encoder"] as? [String: Any])
        let parts = try #require(encoder["parts"] as? [[String: Any]])
        let length256 = try #require(encoder["message_len"] as? Int)
        let seqLen = try #require(parts.first?["seq_len"] as? Int)
        let simple = parts.prefix(seqLen).map { TestHex.bytes($0["data_hex"] as? String ?? "") }
        #expect(length256 == 256 && simple.count == seqLen)
        let message = Self.makeMessage(length256)
        #expect(message == Array(simple.joined().prefix(length256)))
        #expect(parts.allSatisfy { ($0["checksum"] as? Int) == Int(CRC32.checksum(message)) })
        // Control: another seed gives other bytes, so the comparison can fail.
        #expect(Self.makeMessage(length256, seed: "Fox") != message)
    }

    @Test("crc32")
    func crc32() throws {
        let cases = try #require(try Self.vectors()["crc32"] as? [[String: String]])
        #expect(cases.count == 2)
        for c in cases {
            let input = try #require(c["input_utf8"])
            #expect(String(format: "%08x", CRC32.checksum(Array(input.utf8))) == c["crc32_hex"])
        }
    }

    @Test("bytewords_1 and bytewords_2: encode, decode, must-fail decodes")
    func bytewords() throws {
        let v = try Self.vectors()
        for key in ["bytewords_1", "bytewords_2"] {
            let group = try #require(v[key] as? [String: Any])
            let input = TestHex.bytes(try #require(group["input_hex"] as? String))
            for (style, name) in [(Bytewords.Style.standard, "standard"), (.uri, "uri"), (.minimal, "minimal")] {
                guard let expected = group[name] as? String else { continue }
                #expect(Bytewords.encode(input, style: style) == expected)
                #expect(try Bytewords.decode(expected, style: style) == input)
                #expect(try Bytewords.decode(expected.uppercased(), style: style) == input)
            }
            for failure in group["decode_must_fail"] as? [[String: String]] ?? [] {
                let style: Bytewords.Style =
                    switch failure["style"] {
                    case "uri": .uri
                    case "minimal": .minimal
                    default: .standard
                    }
                #expect(throws: BytewordsError.self) { try Bytewords.decode(failure["text"] ?? "", style: style) }
            }
        }
        let failures = try #require((v["bytewords_1"] as? [String: Any])?["decode_must_fail"] as? [Any])
        #expect(failures.count == 5)
    }

    @Test("xoshiro256: three 100-value sequences")
    func xoshiro() throws {
        let group = try #require(try Self.vectors()["xoshiro256"] as? [String: [String: Any]])
        let v1 = try #require(group["rng_1"]?["values"] as? [Int])
        let v2 = try #require(group["rng_2"]?["values"] as? [Int])
        let v3 = try #require(group["rng_3"]?["values"] as? [Int])
        var r1 = Xoshiro256(string: "Wolf")
        #expect(v1 == (0..<v1.count).map { _ in Int(r1.next() % 100) })
        var r2 = Xoshiro256(uint32: CRC32.checksum(Array("Wolf".utf8)))
        #expect(v2 == (0..<v2.count).map { _ in Int(r2.next() % 100) })
        var r3 = Xoshiro256(string: "Wolf")
        #expect(v3 == (0..<v3.count).map { _ in Int(r3.nextInt(1, 10)) })
        #expect(v1.count == 100 && v2.count == 100 && v3.count == 100)
    }

    @Test("find_nominal_fragment_length")
    func nominalFragmentLength() throws {
        let cases = try #require(try Self.vectors()["find_nominal_fragment_length"] as? [[String: Int]])
        #expect(cases.count == 2)
        for c in cases {
            let length = FountainUtilities.nominalFragmentLength(
                messageLength: c["message_len"] ?? 0, minFragmentLength: c["min_fragment_len"] ?? 0,
                maxFragmentLength: c["max_fragment_len"] ?? 0)
            #expect(length == c["expected"])
        }
    }

    @Test("random_sampler: 500 samples over weights [1,2,4,8]")
    func randomSampler() throws {
        let group = try #require(try Self.vectors()["random_sampler"] as? [String: Any])
        let weights = try #require(group["weights"] as? [Double])
        let samples = try #require(group["samples"] as? [Int])
        var rng = Xoshiro256(string: "Wolf")
        let sampler = RandomSampler(weights: weights)
        #expect(samples == (0..<samples.count).map { _ in sampler.next { rng.nextDouble() } })
        #expect(samples.count == 500)
    }

    @Test("shuffle: 10 successive shuffles")
    func shuffle() throws {
        let group = try #require(try Self.vectors()["shuffle"] as? [String: Any])
        let input = try #require(group["input"] as? [Int])
        let results = try #require(group["results"] as? [[Int]])
        var rng = Xoshiro256(string: "Wolf")
        #expect(results == (0..<results.count).map { _ in FountainUtilities.shuffled(input, rng: &rng) })
        #expect(results.count == 10)
    }

    @Test("partition_message")
    func partition() throws {
        let group = try #require(try Self.vectors()["partition_message"] as? [String: Any])
        let message = Self.makeMessage(try #require(group["message_len"] as? Int))
        let length = FountainUtilities.nominalFragmentLength(
            messageLength: message.count, minFragmentLength: try #require(group["min_fragment_len"] as? Int),
            maxFragmentLength: try #require(group["max_fragment_len"] as? Int))
        let expected = try #require(group["fragments_hex"] as? [String])
        #expect(FountainUtilities.partition(message, fragmentLength: length).map { TestHex.string($0) } == expected)
    }

    @Test("choose_degree for nonces 1...200")
    func chooseDegree() throws {
        let group = try #require(try Self.vectors()["choose_degree"] as? [String: Any])
        let count = try #require(group["fragment_count"] as? Int)
        let degrees = try #require(group["degrees"] as? [Int])
        let actual = (1...degrees.count).map { nonce in
            var rng = Xoshiro256(string: "Wolf-\(nonce)")
            return FountainUtilities.chooseDegree(seqLen: count, rng: &rng)
        }
        #expect(actual == degrees)
        #expect(degrees.count == 200)
    }

    @Test("choose_fragments for seqNum 1...30")
    func chooseFragments() throws {
        let group = try #require(try Self.vectors()["choose_fragments"] as? [String: Any])
        let expected = try #require(group["indexes"] as? [[Int]])
        let message = Self.makeMessage(1024)
        let checksum = CRC32.checksum(message)
        let actual = (1...expected.count).map { seqNum in
            FountainUtilities.chooseFragments(seqNum: UInt32(seqNum), seqLen: 11, checksum: checksum).sorted()
        }
        #expect(actual == expected)
        #expect(expected.count == 30)
    }

    @Test("xor")
    func xor() throws {
        let group = try #require(try Self.vectors()["xor"] as? [String: String])
        var rng = Xoshiro256(string: "Wolf")
        let a = rng.nextData(10)
        let b = rng.nextData(10)
        #expect(TestHex.string(a) == group["data1_hex"])
        #expect(TestHex.string(b) == group["data2_hex"])
        #expect(TestHex.string(FountainUtilities.xor(a, b)) == group["xor_hex"])
        #expect(FountainUtilities.xor(FountainUtilities.xor(a, b), b) == a)
    }

    @Test("fountain_encoder: 20 parts and their CBOR")
    func fountainEncoder() throws {
        let group = try #require(try Self.vectors()["fountain_encoder"] as? [String: Any])
        let parts = try #require(group["parts"] as? [[String: Any]])
        var encoder = FountainEncoder(
            message: Self.makeMessage(try #require(group["message_len"] as? Int)),
            maxFragmentLength: try #require(group["max_fragment_len"] as? Int))
        for expected in parts {
            let part = encoder.nextPart()
            #expect(Int(part.seqNum) == expected["seq_num"] as? Int)
            #expect(part.seqLen == expected["seq_len"] as? Int)
            #expect(part.messageLength == expected["message_len"] as? Int)
            #expect(Int(part.checksum) == expected["checksum"] as? Int)
            #expect(TestHex.string(part.data) == expected["data_hex"] as? String)
            #expect(TestHex.string(part.cbor()) == expected["cbor_hex"] as? String)
            #expect(try FountainPart(cbor: part.cbor()) == part)
        }
        #expect(parts.count == 20)
    }

    @Test("fountain_cbor_roundtrip")
    func fountainCBORRoundTrip() throws {
        let g = try #require(try Self.vectors()["fountain_cbor_roundtrip"] as? [String: Any])
        let part = FountainPart(
            seqNum: UInt32(try #require(g["seq_num"] as? Int)), seqLen: try #require(g["seq_len"] as? Int),
            messageLength: try #require(g["message_len"] as? Int),
            checksum: UInt32(try #require(g["checksum"] as? Int)),
            data: (try #require(g["data"] as? [Int])).map { UInt8($0) })
        // Upstream builds this part by hand; its 5-byte data cannot split 100 bytes into 8, so the decoder's
        // consistency check rejects it while the CBOR itself round-trips.
        let item = try CBOR(serialized: part.cbor())
        #expect(item.serialized() == part.cbor())
        #expect(throws: URError.self) { try FountainPart(cbor: part.cbor()) }
    }

    @Test("single_part_ur")
    func singlePartUR() throws {
        let g = try #require(try Self.vectors()["single_part_ur"] as? [String: Any])
        let message = Self.makeMessage(try #require(g["message_len"] as? Int))
        let ur = try UR(type: "bytes", cbor: CBOR.bytes(message).serialized())
        let expected = try #require(g["ur"] as? String)
        #expect(ur.string == expected)
        #expect(try UR(string: expected) == ur)
        #expect(try UR(string: expected.uppercased()) == ur)
        var encoder = try UREncoder(ur: ur, maxFragmentLength: 1000)
        #expect(encoder.isSinglePart)
        #expect(encoder.nextPart() == expected)
    }

    @Test("multipart_ur: 20 parts, then decoded back")
    func multipartUR() throws {
        let g = try #require(try Self.vectors()["multipart_ur"] as? [String: Any])
        let expected = try #require(g["parts"] as? [String])
        let message = Self.makeMessage(try #require(g["message_len"] as? Int))
        let ur = try UR(type: "bytes", cbor: CBOR.bytes(message).serialized())
        var encoder = try UREncoder(ur: ur, maxFragmentLength: try #require(g["max_fragment_len"] as? Int))
        #expect((0..<expected.count).map { _ in encoder.nextPart() } == expected)
        #expect(expected.count == 20)
        // In reverse order and upper case, so that mixed parts arrive first and must be reduced.
        var decoder = URDecoder()
        for part in expected.reversed() where !decoder.isComplete { try decoder.receive(part.uppercased()) }
        #expect(decoder.result == ur)
    }

    @Test("fountain_decoder_roundtrip: 32767 bytes, fragment 1000, first seqNum 100")
    func fountainDecoderRoundTrip() throws {
        let g = try #require(try Self.vectors()["fountain_decoder_roundtrip"] as? [String: Any])
        let message = Self.makeMessage(try #require(g["message_len"] as? Int))
        var encoder = FountainEncoder(
            message: message, maxFragmentLength: try #require(g["max_fragment_len"] as? Int),
            firstSeqNum: UInt32(try #require(g["first_seq_num"] as? Int)))
        var decoder = FountainDecoder()
        var sent = 0
        while !decoder.isComplete, sent < 1000 {
            try decoder.receive(encoder.nextPart())
            sent += 1
        }
        #expect(decoder.message == message)

        let ur = try UR(type: "bytes", cbor: CBOR.bytes(message).serialized())
        var urEncoder = try UREncoder(ur: ur, maxFragmentLength: 1000, firstSeqNum: 100)
        var urDecoder = URDecoder()
        sent = 0
        while !urDecoder.isComplete, sent < 1000 {
            try urDecoder.receive(urEncoder.nextPart())
            sent += 1
        }
        #expect(urDecoder.result == ur)
    }
}
