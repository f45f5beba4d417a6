import Bitcoin
import BitcoinCrypto

/// SLIP-39 Shamir backups: a master secret split into groups of shares, any threshold of which restores it.
///
/// `combine` restores the master secret from shares (and the passphrase); `split` makes shares any SLIP-39
/// implementation (Trezor, Keystone, python-shamir-mnemonic) restores. Share values, the encrypted master secret and
/// the master secret stay in `SecretBytes`; the temporary arrays of the arithmetic are wiped.
/// - SeeAlso: https://github.com/satoshilabs/slips/blob/master/slip-0039.md
public enum SLIP39 {
    /// At most 16 groups and 16 shares a group.
    public static let maxShareCount = 16
    static let digestIndex: UInt8 = 254
    static let secretIndex: UInt8 = 255
    static let digestLength = 4
    static let baseIterations = 10_000
    static let roundCount = 4

    /// Word → index, for reading shares.
    static let wordIndex: [String: Int] = Dictionary(
        uniqueKeysWithValues: wordlist.enumerated().map { ($0.element, $0.offset) })

    /// The RS1024 customization string: "shamir", or "shamir_extendable" for extendable backups.
    static func customization(extendable: Bool) -> [Int] {
        Array((extendable ? "shamir_extendable" : "shamir").utf8).map(Int.init)
    }

    /// The RS1024 checksum polynomial over GF(1024) of SLIP-39 (1 for a valid share with its customization string).
    static func rs1024Polymod(_ values: some Sequence<Int>) -> Int {
        let generator = [
            0xE0_E040, 0x1C1_C080, 0x383_8100, 0x707_0200, 0xE0E_0009, 0x1C0C_2412, 0x3808_6C24, 0x3090_FC48,
            0x21B1_F890, 0x3F3F_120,
        ]
        var checksum = 1
        for value in values {
            let top = checksum >> 20
            checksum = (checksum & 0xF_FFFF) << 10 ^ value
            for i in 0..<10 where (top >> i) & 1 == 1 { checksum ^= generator[i] }
        }
        return checksum
    }

    // MARK: Combining

    /// Restores the master secret from `shares` (exactly the group threshold of groups, each with exactly its member
    /// threshold of shares) and the passphrase (empty when none was set).
    ///
    /// - Throws: `SLIP39Error` naming what is inconsistent; `.invalidDigest` when a share is wrong.
    public static func combine(_ shares: [SLIP39Share], passphrase: SecretBytes) throws(SLIP39Error) -> SecretBytes {
        guard let first = shares.first else { throw .noShares }
        let encrypted = try recoverEncryptedSecret(shares)
        return decrypt(
            encrypted, passphrase: passphrase, iterationExponent: first.iterationExponent,
            identifier: first.identifier, extendable: first.extendable)
    }

    /// The encrypted master secret the shares hold.
    ///
    /// Every consistency check of `consistentGroups` runs first.
    /// The shares by group (a share given twice counted once), after checking that they belong to one backup: the
    /// same identifier and parameters, one member threshold a group, no member index held by two different shares,
    /// one value length.
    ///
    /// - Throws: `.noShares`, `.mismatchedShares`, `.mismatchedMemberThreshold`, `.duplicateMemberIndex`,
    ///   `.mismatchedLengths`.
    public static func consistentGroups(_ shares: [SLIP39Share]) throws(SLIP39Error) -> [Int: [SLIP39Share]] {
        guard let first = shares.first else { throw .noShares }
        for share in shares {
            guard share.identifier == first.identifier, share.extendable == first.extendable,
                share.iterationExponent == first.iterationExponent, share.groupThreshold == first.groupThreshold,
                share.groupCount == first.groupCount
            else { throw .mismatchedShares }
            guard share.value.count == first.value.count else { throw .mismatchedLengths }
        }
        var groups: [Int: [SLIP39Share]] = [:]
        for share in shares {
            var members = groups[share.groupIndex, default: []]
            if let other = members.first, other.memberThreshold != share.memberThreshold {
                throw .mismatchedMemberThreshold(group: share.groupIndex)
            }
            if let same = members.first(where: { $0.memberIndex == share.memberIndex }) {
                guard same == share else {
                    throw .duplicateMemberIndex(group: share.groupIndex, member: share.memberIndex)
                }
                continue  // the same share twice
            }
            members.append(share)
            groups[share.groupIndex] = members
        }
        return groups
    }

    static func recoverEncryptedSecret(_ shares: [SLIP39Share]) throws(SLIP39Error) -> SecretBytes {
        guard let first = shares.first else { throw .noShares }
        let groups = try consistentGroups(shares)
        guard groups.count >= first.groupThreshold else {
            throw .insufficientGroups(required: first.groupThreshold, given: groups.count)
        }
        guard groups.count == first.groupThreshold else {
            throw .tooManyGroups(required: first.groupThreshold, given: groups.count)
        }
        var groupSecrets: [(x: UInt8, value: SecretBytes)] = []
        for (index, members) in groups.sorted(by: { $0.key < $1.key }) {
            let threshold = members[0].memberThreshold
            guard members.count == threshold else {
                throw .wrongShareCount(group: index, required: threshold, given: members.count)
            }
            let secret = try recoverSecret(
                threshold: threshold, shares: members.map { (UInt8($0.memberIndex), $0.value) })
            groupSecrets.append((UInt8(index), secret))
        }
        return try recoverSecret(threshold: first.groupThreshold, shares: groupSecrets)
    }

    /// Lagrange-interpolates the secret (x = 255) and checks it against the digest share (x = 254).
    static func recoverSecret(threshold: Int, shares: [(x: UInt8, value: SecretBytes)]) throws(SLIP39Error)
        -> SecretBytes
    {
        if threshold == 1, let only = shares.first { return only.value }
        let secret = try interpolate(shares, at: secretIndex)
        let digestShare = try interpolate(shares, at: digestIndex)
        var digestBytes = digestShare.unsafeCopyToArray()
        defer { SecretBytes.wipe(&digestBytes) }
        let expected = digest(random: Array(digestBytes[digestLength...]), secret: secret)
        guard Array(digestBytes[..<digestLength]) == expected else { throw .invalidDigest }
        return secret
    }

    /// The first four bytes of HMAC-SHA256(key: random part, message: secret).
    static func digest(random: [UInt8], secret: SecretBytes) -> [UInt8] {
        var mac = HMACSHA256(key: random)
        secret.withUnsafeBytes { mac.update($0) }
        return Array(mac.finalize().prefix(digestLength))
    }

    // MARK: GF(256) arithmetic (the Rijndael field, x^8 + x^4 + x^3 + x + 1)

    static let tables: (exp: [Int], log: [Int]) = {
        var exp = [Int](repeating: 0, count: 255)
        var log = [Int](repeating: 0, count: 256)
        var poly = 1
        for i in 0..<255 {
            exp[i] = poly
            log[poly] = i
            poly = (poly << 1) ^ poly  // multiply by x + 1, a generator
            if poly & 0x100 != 0 { poly ^= 0x11B }
        }
        return (exp, log)
    }()

    /// The value at `x` of the polynomial through `shares`.
    static func interpolate(_ shares: [(x: UInt8, value: SecretBytes)], at x: UInt8) throws(SLIP39Error)
        -> SecretBytes
    {
        guard Set(shares.map(\.x)).count == shares.count else {
            throw .duplicateMemberIndex(group: -1, member: -1)
        }
        guard let length = shares.first?.value.count, shares.allSatisfy({ $0.value.count == length }) else {
            throw .mismatchedLengths
        }
        if let hit = shares.first(where: { $0.x == x }) { return SecretBytes(copying: hit.value.unsafeCopyToArray()) }
        let (exp, log) = tables
        let logProduct = shares.reduce(0) { $0 + log[Int($1.x ^ x)] }
        let result = SecretBytes(count: length)
        result.withUnsafeMutableBytes { out in
            for share in shares {
                let others = shares.reduce(0) { $0 + log[Int(share.x ^ $1.x)] }
                let basis = ((logProduct - log[Int(share.x ^ x)] - others) % 255 + 255) % 255
                share.value.withUnsafeBytes { value in
                    for i in 0..<length where value[i] != 0 {
                        out[i] ^= UInt8(exp[(log[Int(value[i])] + basis) % 255])
                    }
                }
            }
        }
        return result
    }

    // MARK: Encryption (a four-round Feistel network over PBKDF2-HMAC-SHA256)

    /// Decrypts the encrypted master secret with the passphrase.
    public static func decrypt(
        _ encrypted: SecretBytes, passphrase: SecretBytes, iterationExponent: Int, identifier: UInt16,
        extendable: Bool
    ) -> SecretBytes {
        feistel(
            encrypted, passphrase: passphrase, iterationExponent: iterationExponent, identifier: identifier,
            extendable: extendable, rounds: Array((0..<roundCount).reversed()))
    }

    /// Encrypts the master secret with the passphrase.
    public static func encrypt(
        _ secret: SecretBytes, passphrase: SecretBytes, iterationExponent: Int, identifier: UInt16,
        extendable: Bool
    ) -> SecretBytes {
        feistel(
            secret, passphrase: passphrase, iterationExponent: iterationExponent, identifier: identifier,
            extendable: extendable, rounds: Array(0..<roundCount))
    }

    private static func feistel(
        _ input: SecretBytes, passphrase: SecretBytes, iterationExponent: Int, identifier: UInt16, extendable: Bool,
        rounds: [Int]
    ) -> SecretBytes {
        let half = input.count / 2
        var left = input.slice(0..<half)
        var right = input.slice(half..<input.count)
        let salt: [UInt8] =
            extendable ? [] : Array("shamir".utf8) + [UInt8(identifier >> 8), UInt8(identifier & 0xFF)]
        let iterations = (baseIterations << iterationExponent) / roundCount
        for round in rounds {
            let password = SecretBytes(copying: [UInt8(round)]).appending(passphrase)
            var saltAndRight = salt + right.unsafeCopyToArray()
            defer { SecretBytes.wipe(&saltAndRight) }
            let f = PBKDF2.hmacSHA256(
                password: password, salt: saltAndRight, iterations: iterations, keyLength: half)
            let mixed = SecretBytes(count: half)
            mixed.withUnsafeMutableBytes { out in
                left.withUnsafeBytes { l in f.withUnsafeBytes { k in for i in 0..<half { out[i] = l[i] ^ k[i] } } }
            }
            left = right
            right = mixed
        }
        return right.appending(left)
    }

    // MARK: Splitting

    /// One group's shape: `threshold` of `count` shares.
    public struct GroupSpec: Sendable, Equatable {
        /// Shares needed.
        public let threshold: Int
        /// Shares made.
        public let count: Int
        /// A group of `threshold` of `count` shares.
        public init(threshold: Int, count: Int) {
            self.threshold = threshold
            self.count = count
        }
    }

    /// Splits `masterSecret` (16 to 32 bytes as Trezor makes it, or a BIP39 seed of 64; an even number ≥ 16) into
    /// groups of shares, encrypted with `passphrase`.
    ///
    /// `random` supplies random bytes (tests pass a fixed source; the signer the OS one).
    /// - Throws: `SLIP39Error.invalidParameters` naming what is out of range.
    public static func split(
        masterSecret: SecretBytes,
        passphrase: SecretBytes,
        groupThreshold: Int,
        groups: [GroupSpec],
        extendable: Bool = true,
        iterationExponent: Int = 1,
        random: (Int) -> [UInt8] = SecureRandom.bytes
    ) throws(SLIP39Error) -> [[SLIP39Share]] {
        try checkSplit(
            secretLength: masterSecret.count, iterationExponent: iterationExponent, groupThreshold: groupThreshold,
            groups: groups)
        let encrypted = EncryptedMasterSecret(
            encrypting: masterSecret, passphrase: passphrase, extendable: extendable,
            iterationExponent: iterationExponent, random: random)
        return try split(encrypted, groupThreshold: groupThreshold, groups: groups, random: random)
    }

    /// Shamir-splits one secret: threshold − 2 random shares, the digest share and the secret fix the polynomial.
    static func splitSecret(threshold: Int, count: Int, secret: SecretBytes, random: (Int) -> [UInt8])
        -> [(x: UInt8, value: SecretBytes)]
    {
        if threshold == 1 { return (0..<count).map { (UInt8($0), secret) } }
        var shares: [(x: UInt8, value: SecretBytes)] = (0..<(threshold - 2)).map {
            (UInt8($0), SecretBytes(copying: random(secret.count)))
        }
        let randomPart = random(secret.count - digestLength)
        let digestShare = SecretBytes(copying: digest(random: randomPart, secret: secret) + randomPart)
        let base = shares + [(digestIndex, digestShare), (secretIndex, secret)]
        for x in (threshold - 2)..<count {
            // The base points have distinct x and equal lengths, so interpolation cannot fail here.
            guard let value = try? interpolate(base, at: UInt8(x)) else { preconditionFailure("SLIP-39 split") }
            shares.append((UInt8(x), value))
        }
        return shares
    }
}

// MARK: The encrypted master secret (what a vault keeps)

extension SLIP39 {
    /// The encrypted master secret with the parameters its decryption needs.
    ///
    /// It is what every set of shares of one backup restores before the passphrase is applied. A vault keeps this, so a passphrase (or another one, giving another
    /// wallet, as on a Trezor) is applied when the seed is needed, and new shares of the same backup can be made.
    public struct EncryptedMasterSecret: Sendable {
        /// The encrypted master secret (as long as the master secret).
        public let value: SecretBytes
        /// The 15-bit identifier of the backup.
        public let identifier: UInt16
        /// Whether the identifier is left out of the encryption salt.
        public let extendable: Bool
        /// The PBKDF2 iteration exponent (0...15).
        public let iterationExponent: Int

        /// An encrypted master secret with its parameters (as read from a vault).
        public init(value: SecretBytes, identifier: UInt16, extendable: Bool, iterationExponent: Int) {
            self.value = value
            self.identifier = identifier & 0x7FFF
            self.extendable = extendable
            self.iterationExponent = iterationExponent
        }

        /// Encrypts `masterSecret` with `passphrase` under a new random identifier.
        public init(
            encrypting masterSecret: SecretBytes, passphrase: SecretBytes, extendable: Bool = true,
            iterationExponent: Int = 1, random: (Int) -> [UInt8] = SecureRandom.bytes
        ) {
            let idBytes = random(2)
            let identifier = (UInt16(idBytes[0]) << 8 | UInt16(idBytes[1])) & 0x7FFF
            self.init(
                value: SLIP39.encrypt(
                    masterSecret, passphrase: passphrase, iterationExponent: iterationExponent,
                    identifier: identifier, extendable: extendable),
                identifier: identifier, extendable: extendable, iterationExponent: iterationExponent)
        }

        /// The master secret under `passphrase` (the empty one when none was set).
        ///
        /// Any passphrase gives a secret; only the right one gives the wallet the shares were made for.
        public func masterSecret(passphrase: SecretBytes) -> SecretBytes {
            SLIP39.decrypt(
                value, passphrase: passphrase, iterationExponent: iterationExponent, identifier: identifier,
                extendable: extendable)
        }
    }

    /// Restores the encrypted master secret from `shares` (every consistency check and the digest of `combine`).
    ///
    /// - Throws: `SLIP39Error`.
    public static func recover(_ shares: [SLIP39Share]) throws(SLIP39Error) -> EncryptedMasterSecret {
        guard let first = shares.first else { throw .noShares }
        return EncryptedMasterSecret(
            value: try recoverEncryptedSecret(shares), identifier: first.identifier, extendable: first.extendable,
            iterationExponent: first.iterationExponent)
    }

    /// Splits an encrypted master secret into groups of shares (the same backup: same identifier, same passphrase).
    ///
    /// - Throws: `SLIP39Error.invalidParameters` naming what is out of range.
    public static func split(
        _ encrypted: EncryptedMasterSecret, groupThreshold: Int, groups: [GroupSpec],
        random: (Int) -> [UInt8] = SecureRandom.bytes
    ) throws(SLIP39Error) -> [[SLIP39Share]] {
        try checkSplit(
            secretLength: encrypted.value.count, iterationExponent: encrypted.iterationExponent,
            groupThreshold: groupThreshold, groups: groups)
        let groupSecrets = splitSecret(
            threshold: groupThreshold, count: groups.count, secret: encrypted.value, random: random)
        return zip(groups, groupSecrets).map { group, groupSecret in
            splitSecret(threshold: group.threshold, count: group.count, secret: groupSecret.value, random: random).map {
                SLIP39Share(
                    identifier: encrypted.identifier, extendable: encrypted.extendable,
                    iterationExponent: encrypted.iterationExponent, groupIndex: Int(groupSecret.x),
                    groupThreshold: groupThreshold, groupCount: groups.count, memberIndex: Int($0.x),
                    memberThreshold: group.threshold, value: $0.value)
            }
        }
    }

    /// The parameter checks of a split.
    static func checkSplit(secretLength: Int, iterationExponent: Int, groupThreshold: Int, groups: [GroupSpec])
        throws(SLIP39Error)
    {
        guard secretLength >= 16, secretLength % 2 == 0 else {
            throw .invalidParameters("the master secret must be at least 16 bytes and of even length")
        }
        guard (0...15).contains(iterationExponent) else {
            throw .invalidParameters("the iteration exponent must be 0 to 15")
        }
        guard (1...maxShareCount).contains(groups.count), (1...groups.count).contains(groupThreshold) else {
            throw .invalidParameters("the group threshold must be 1 to the number of groups (at most 16)")
        }
        for group in groups {
            guard (1...maxShareCount).contains(group.count), (1...group.count).contains(group.threshold) else {
                throw .invalidParameters("a group's threshold must be 1 to its share count (at most 16)")
            }
            guard !(group.threshold == 1 && group.count > 1) else {
                throw .invalidParameters("a group of threshold 1 must have 1 share (use 1of1)")
            }
        }
    }
}
