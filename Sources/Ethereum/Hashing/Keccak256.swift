internal import BitcoinCrypto

/// Keccak-256 as Ethereum uses it: the Keccak[r=1088, c=512] sponge with the original `0x01` padding, which differs
/// from FIPS 202 SHA3-256 (`0x06`) only in the domain bits.
///
/// The sponge runs on nettle's Keccak-f[1600] permutation through `BitcoinCrypto.KeccakSponge` (BitcoinCrypto is
/// the one module that imports CNettle, docs/architecture.md rule R2).
/// - SeeAlso: https://keccak.team/keccak_specs_summary.html
public enum Keccak256 {
    /// The rate of the sponge in bytes (1088 bits).
    static let rate = KeccakSponge.rate

    /// Hashes `bytes` with Keccak-256 (32 bytes out).
    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        KeccakSponge.hash256(bytes, domainSuffix: 0x01)
    }

    /// The sponge over `message` with the given padding suffix (0x01 Keccak, 0x06 SHA3), squeezing 32 bytes.
    static func sponge(_ message: [UInt8], domainSuffix: UInt8) -> [UInt8] {
        KeccakSponge.hash256(message, domainSuffix: domainSuffix)
    }
}
