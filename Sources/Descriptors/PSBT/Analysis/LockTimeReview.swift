import Bitcoin
import Foundation

/// What a transaction waits for before it can be mined (its nLockTime) and whether it can be replaced (BIP125), as a
/// reviewer must see them (docs/threat-model.md, "Time locks").
///
/// A coordinator that sets nLockTime decades ahead holds a payment that cannot be mined until then: the signer shows
/// the lock and warns when it is far. The chain's height is not known offline, so it is estimated from a clock:
/// block 840,000 at 2024-04-20 12:09 UTC and one block every 600 seconds.
public struct LockTimeReview: Sendable, Equatable {
    /// The kind of lock.
    public enum Lock: Sendable, Equatable {
        /// No lock (nLockTime 0).
        case none
        /// Not mined before block `height`.
        case height(UInt32)
        /// Not mined before the median time past reaches `time` (seconds since 1970).
        case time(UInt32)
    }

    /// The transaction's lock.
    public let lock: Lock
    /// Whether an input signals replace-by-fee (nSequence below 0xfffffffe).
    public let signalsReplaceByFee: Bool
    /// Whether the lock applies: some input's nSequence is not 0xffffffff (with every input final it is ignored).
    public let isEnforced: Bool

    /// Block 840,000's time as pinned for the estimate (2024-04-20 12:09 UTC).
    public static let referenceHeight: UInt32 = 840_000
    /// 2024-04-20 12:09:00 UTC in seconds since 1970.
    public static let referenceTime: TimeInterval = 1_713_614_940
    /// How many blocks past the estimated height a mainnet height lock may be before it is warned about.
    public static let heightMargin: Int64 = 13_000
    /// How far ahead a time lock may be before it is warned about (90 days).
    public static let timeMargin: TimeInterval = 90 * 86_400
    /// Test networks' heights cannot be estimated from a clock: only a height past this is warned about there.
    public static let testNetworkHeightLimit: UInt32 = 5_000_000

    /// The lock of a transaction with `lockTime` and inputs' `sequences`.
    public init(lockTime: UInt32, sequences: [UInt32]) {
        lock =
            lockTime == 0 ? .none : lockTime < LockTime.threshold ? .height(lockTime) : .time(lockTime)
        signalsReplaceByFee = sequences.contains { $0 < 0xFFFF_FFFE }
        isEnforced = sequences.contains { $0 != 0xFFFF_FFFF }
    }

    /// The mainnet height the clock implies at `now`.
    public static func estimatedHeight(at now: Date) -> Int64 {
        Int64(referenceHeight) + Int64(((now.timeIntervalSince1970 - referenceTime) / 600).rounded(.down))
    }

    /// The warning this lock deserves on `network` at `now`, if any: a mainnet height more than 13,000 blocks past
    /// the estimated height, a test network height past 5,000,000, a time more than 90 days ahead.
    public func warning(network: Network, now: Date) -> PSBTWarning? {
        switch lock {
        case .none: return nil
        case .height(let height):
            if network == .main {
                let expected = Self.estimatedHeight(at: now)
                guard Int64(height) - expected > Self.heightMargin else { return nil }
                return .farLocktimeHeight(height: height, blocksAhead: Int64(height) - expected)
            }
            guard height > Self.testNetworkHeightLimit else { return nil }
            return .farLocktimeHeight(height: height, blocksAhead: nil)
        case .time(let time):
            let ahead = TimeInterval(time) - now.timeIntervalSince1970
            guard ahead > Self.timeMargin else { return nil }
            return .farLocktimeTime(time: time, secondsAhead: Int64(ahead))
        }
    }

    /// The lock in words for the review: `block 900,000 (about 3 weeks from now)`, `2031-01-01 00:00 UTC`; nil when
    /// there is none.
    public func words(network: Network, now: Date) -> String? {
        var text: String
        switch lock {
        case .none: return nil
        case .height(let height):
            text = "not before block \(Self.grouped(Int64(height)))"
            if network == .main {
                let ahead = Int64(height) - Self.estimatedHeight(at: now)
                text +=
                    ahead > 0
                    ? " (about \(Self.duration(seconds: ahead * 600)) from now, at 10 minutes a block)"
                    : " (already reached, by the clock's estimate)"
            }
        case .time(let time):
            text = "not before \(Self.utc(time))"
            let ahead = Int64(TimeInterval(time) - now.timeIntervalSince1970)
            text += ahead > 0 ? " (about \(Self.duration(seconds: ahead)) from now)" : " (already passed)"
        }
        if !isEnforced { text += "; not enforced while every input's sequence is final" }
        return text
    }

    /// `seconds` since 1970 as `YYYY-MM-DD HH:MM UTC`.
    public static func utc(_ seconds: UInt32) -> String {
        let days = Int(seconds) / 86_400
        let rest = Int(seconds) % 86_400
        let (y, m, d) = civil(days)
        return "\(y)-\(two(m))-\(two(d)) \(two(rest / 3_600)):\(two(rest % 3_600 / 60)) UTC"
    }

    /// A duration in the largest unit that reads well: minutes, hours, days, or years.
    public static func duration(seconds: Int64) -> String {
        let s = Double(seconds)
        if s >= 2 * 365.25 * 86_400 { return "\(Int((s / (365.25 * 86_400)).rounded())) years" }
        if s >= 2 * 86_400 { return "\(Int((s / 86_400).rounded())) days" }
        if s >= 2 * 3_600 { return "\(Int((s / 3_600).rounded())) hours" }
        return "\(max(1, Int((s / 60).rounded()))) minutes"
    }

    static func grouped(_ n: Int64) -> String {
        let digits = Array(String(n))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return out
    }

    static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    /// Proleptic Gregorian date of `days` since 1970-01-01 (Howard Hinnant's civil_from_days).
    static func civil(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
