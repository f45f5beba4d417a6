/// The deterministic choices the fountain encoder and decoder share: fragment length, partition, degree, fragments.
///
/// - SeeAlso: https://github.com/BlockchainCommons/bc-ur/blob/master/src/fountain-utils.cpp
package enum FountainUtilities {
    /// Returns the fragment length bc-ur picks: the smallest fragment count whose even split fits `maxFragmentLength`.
    package static func nominalFragmentLength(messageLength: Int, minFragmentLength: Int, maxFragmentLength: Int) -> Int
    {
        let maxCount = messageLength / max(minFragmentLength, 1)
        guard maxCount >= 1 else { return messageLength }  // shorter than one minimum fragment: a single fragment
        var length = messageLength
        for count in 1...maxCount {
            length = (messageLength + count - 1) / count
            if length <= maxFragmentLength { break }
        }
        return length
    }

    /// Splits `message` into fragments of `fragmentLength`, zero-padding the last.
    package static func partition(_ message: [UInt8], fragmentLength: Int) -> [[UInt8]] {
        stride(from: 0, to: message.count, by: fragmentLength).map { start in
            let end = min(start + fragmentLength, message.count)
            return Array(message[start..<end]) + [UInt8](repeating: 0, count: fragmentLength - (end - start))
        }
    }

    /// Returns the bc-ur Fisher-Yates variant: repeatedly removes a random remaining item.
    package static func shuffled<T>(_ items: [T], rng: inout Xoshiro256) -> [T] {
        var remaining = items
        var result: [T] = []
        result.reserveCapacity(items.count)
        while !remaining.isEmpty {
            let index = Int(rng.nextInt(0, UInt64(remaining.count - 1)))
            result.append(remaining.remove(at: index))
        }
        return result
    }

    /// Returns a degree in 1...seqLen with probability proportional to 1/degree.
    package static func chooseDegree(seqLen: Int, rng: inout Xoshiro256) -> Int {
        let sampler = RandomSampler(weights: (1...seqLen).map { 1 / Double($0) })
        return sampler.next { rng.nextDouble() } + 1
    }

    /// Returns the fragment indexes mixed into part `seqNum` (1-based; the first `seqLen` parts are simple).
    package static func chooseFragments(seqNum: UInt32, seqLen: Int, checksum: UInt32) -> Set<Int> {
        if seqNum <= UInt32(clamping: seqLen) { return [Int(seqNum) - 1] }
        var seed: [UInt8] = []
        for value in [seqNum, checksum] {
            seed += [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
        }
        var rng = Xoshiro256(seed: seed)
        let degree = chooseDegree(seqLen: seqLen, rng: &rng)
        let shuffled = shuffled(Array(0..<seqLen), rng: &rng)
        return Set(shuffled.prefix(degree))
    }

    /// Returns `a` XOR `b` (the shorter length).
    package static func xor(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var out = a
        xorInPlace(&out, b)
        return out
    }

    /// XORs `b` into `a` over the shorter length.
    package static func xorInPlace(_ a: inout [UInt8], _ b: [UInt8]) {
        let n = min(a.count, b.count)
        a.withUnsafeMutableBufferPointer { out in
            b.withUnsafeBufferPointer { input in
                for i in 0..<n { out[i] ^= input[i] }
            }
        }
        if a.count > n { a.removeLast(a.count - n) }
    }
}
