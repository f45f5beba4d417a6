// FuzzSeedBackup: bytes as a SeedQR payload (Standard digits or Compact entropy, `SeedQR.read`) and as text of SLIP-39
// shares, one a line (`SLIP39Share(words:)`, the group checks and the recovery of the encrypted master secret, without
// the passphrase's PBKDF2). Any trap is a bug; a SeedQR that reads must be written back byte for byte, a share's words
// must read back as the same share.
import BitcoinCrypto
import SeedBackup

extension FuzzTargets {
    /// One input of FuzzSeedBackup.
    public static func seedBackup(_ bytes: [UInt8]) {
        let payload = SecretBytes(copying: bytes)
        if let (mnemonic, format) = try? SeedQR.read(payload) {
            precondition(SeedQR.payload(for: mnemonic, format: format) == payload, "SeedQR round trip changed it")
        }
        let lines = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).prefix(16)
        let shares = lines.enumerated().compactMap { try? SLIP39Share(words: String($1), number: $0 + 1) }
        for share in shares {
            let words = String(decoding: share.words().unsafeCopyToArray(), as: UTF8.self)
            precondition((try? SLIP39Share(words: words)) == share, "a SLIP-39 share's words read back otherwise")
        }
        guard !shares.isEmpty else { return }
        _ = try? SLIP39.consistentGroups(shares)
        _ = try? SLIP39.recover(shares)
    }
}
