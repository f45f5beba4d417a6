/// AES-256 in counter mode (FIPS-197, NIST SP 800-38A), as BIP129 (BSMS) encrypts its records: the 16-byte initial
/// counter block is incremented as one 128-bit big-endian number per block.
///
/// A table-free byte-oriented implementation: BSMS records are a few hundred bytes, so speed does not matter; the key
/// schedule is kept in `SecretBytes`.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0129.mediawiki#encryption-scheme
public enum AES256CTR {
    /// Encrypts (or, the same operation, decrypts) `data` under the 32-byte `key` from the counter block `iv`.
    ///
    /// - Throws: `KeyError.invalidLength` for a key that is not 32 bytes or an IV that is not 16.
    public static func apply(key: SecretBytes, iv: [UInt8], to data: [UInt8]) throws(KeyError) -> [UInt8] {
        guard key.count == 32 else { throw .invalidLength(expected: 32, actual: key.count) }
        guard iv.count == 16 else { throw .invalidLength(expected: 16, actual: iv.count) }
        var schedule = expandKey(key.unsafeCopyToArray())
        defer { SecretBytes.wipe(&schedule) }
        var counter = iv
        var out: [UInt8] = []
        out.reserveCapacity(data.count)
        var offset = 0
        while offset < data.count {
            let stream = encryptBlock(counter, schedule: schedule)
            for i in 0..<min(16, data.count - offset) { out.append(data[offset + i] ^ stream[i]) }
            offset += 16
            var position = 15
            while position >= 0 {
                counter[position] &+= 1
                if counter[position] != 0 { break }
                position -= 1
            }
        }
        return out
    }

    /// One block under the expanded key (15 round keys of 16 bytes).
    static func encryptBlock(_ input: [UInt8], schedule: [UInt8]) -> [UInt8] {
        var state = input
        addRoundKey(&state, schedule, round: 0)
        for round in 1..<14 {
            subBytes(&state)
            shiftRows(&state)
            mixColumns(&state)
            addRoundKey(&state, schedule, round: round)
        }
        subBytes(&state)
        shiftRows(&state)
        addRoundKey(&state, schedule, round: 14)
        return state
    }

    static func expandKey(_ key: [UInt8]) -> [UInt8] {
        var w = key
        w.reserveCapacity(240)
        var rcon: UInt8 = 1
        var i = 8
        while i < 60 {
            var temp = Array(w[(i - 1) * 4..<i * 4])
            if i % 8 == 0 {
                temp = [sbox[Int(temp[1])] ^ rcon, sbox[Int(temp[2])], sbox[Int(temp[3])], sbox[Int(temp[0])]]
                rcon = xtime(rcon)
            } else if i % 8 == 4 {
                temp = temp.map { sbox[Int($0)] }
            }
            for j in 0..<4 { w.append(w[(i - 8) * 4 + j] ^ temp[j]) }
            i += 1
        }
        return w
    }

    private static func addRoundKey(_ state: inout [UInt8], _ schedule: [UInt8], round: Int) {
        for i in 0..<16 { state[i] ^= schedule[round * 16 + i] }
    }

    private static func subBytes(_ state: inout [UInt8]) {
        for i in 0..<16 { state[i] = sbox[Int(state[i])] }
    }

    /// The state is column-major: byte `r + 4c` is row r, column c.
    private static func shiftRows(_ state: inout [UInt8]) {
        let copy = state
        for row in 1..<4 {
            for column in 0..<4 { state[row + 4 * column] = copy[row + 4 * ((column + row) % 4)] }
        }
    }

    private static func mixColumns(_ state: inout [UInt8]) {
        for column in 0..<4 {
            let a = Array(state[4 * column..<4 * column + 4])
            let all = a[0] ^ a[1] ^ a[2] ^ a[3]
            for row in 0..<4 { state[4 * column + row] = a[row] ^ all ^ xtime(a[row] ^ a[(row + 1) % 4]) }
        }
    }

    private static func xtime(_ x: UInt8) -> UInt8 { (x << 1) ^ ((x & 0x80) != 0 ? 0x1B : 0) }

    static let sbox: [UInt8] = [
        0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5, 0x30, 0x01, 0x67, 0x2b, 0xfe, 0xd7, 0xab, 0x76,
        0xca, 0x82, 0xc9, 0x7d, 0xfa, 0x59, 0x47, 0xf0, 0xad, 0xd4, 0xa2, 0xaf, 0x9c, 0xa4, 0x72, 0xc0,
        0xb7, 0xfd, 0x93, 0x26, 0x36, 0x3f, 0xf7, 0xcc, 0x34, 0xa5, 0xe5, 0xf1, 0x71, 0xd8, 0x31, 0x15,
        0x04, 0xc7, 0x23, 0xc3, 0x18, 0x96, 0x05, 0x9a, 0x07, 0x12, 0x80, 0xe2, 0xeb, 0x27, 0xb2, 0x75,
        0x09, 0x83, 0x2c, 0x1a, 0x1b, 0x6e, 0x5a, 0xa0, 0x52, 0x3b, 0xd6, 0xb3, 0x29, 0xe3, 0x2f, 0x84,
        0x53, 0xd1, 0x00, 0xed, 0x20, 0xfc, 0xb1, 0x5b, 0x6a, 0xcb, 0xbe, 0x39, 0x4a, 0x4c, 0x58, 0xcf,
        0xd0, 0xef, 0xaa, 0xfb, 0x43, 0x4d, 0x33, 0x85, 0x45, 0xf9, 0x02, 0x7f, 0x50, 0x3c, 0x9f, 0xa8,
        0x51, 0xa3, 0x40, 0x8f, 0x92, 0x9d, 0x38, 0xf5, 0xbc, 0xb6, 0xda, 0x21, 0x10, 0xff, 0xf3, 0xd2,
        0xcd, 0x0c, 0x13, 0xec, 0x5f, 0x97, 0x44, 0x17, 0xc4, 0xa7, 0x7e, 0x3d, 0x64, 0x5d, 0x19, 0x73,
        0x60, 0x81, 0x4f, 0xdc, 0x22, 0x2a, 0x90, 0x88, 0x46, 0xee, 0xb8, 0x14, 0xde, 0x5e, 0x0b, 0xdb,
        0xe0, 0x32, 0x3a, 0x0a, 0x49, 0x06, 0x24, 0x5c, 0xc2, 0xd3, 0xac, 0x62, 0x91, 0x95, 0xe4, 0x79,
        0xe7, 0xc8, 0x37, 0x6d, 0x8d, 0xd5, 0x4e, 0xa9, 0x6c, 0x56, 0xf4, 0xea, 0x65, 0x7a, 0xae, 0x08,
        0xba, 0x78, 0x25, 0x2e, 0x1c, 0xa6, 0xb4, 0xc6, 0xe8, 0xdd, 0x74, 0x1f, 0x4b, 0xbd, 0x8b, 0x8a,
        0x70, 0x3e, 0xb5, 0x66, 0x48, 0x03, 0xf6, 0x0e, 0x61, 0x35, 0x57, 0xb9, 0x86, 0xc1, 0x1d, 0x9e,
        0xe1, 0xf8, 0x98, 0x11, 0x69, 0xd9, 0x8e, 0x94, 0x9b, 0x1e, 0x87, 0xe9, 0xce, 0x55, 0x28, 0xdf,
        0x8c, 0xa1, 0x89, 0x0d, 0xbf, 0xe6, 0x42, 0x68, 0x41, 0x99, 0x2d, 0x0f, 0xb0, 0x54, 0xbb, 0x16,
    ]
}
