import Foundation
import Testing

@testable import Bitcoin
@testable import Descriptors

/// The time-lock check (issue 26, class 7): the chain's height estimated from the clock (block 840,000 at
/// 2024-04-20 12:09 UTC, 600 s a block), the 13,000-block mainnet margin and the 90-day time margin, at their
/// boundaries, with an injected clock.
@Suite("Lock time review")
struct LockTimeReviewTests {
    /// 2025-04-20 12:09 UTC: 365 days after the reference, 52,560 blocks later.
    static let now = Date(timeIntervalSince1970: LockTimeReview.referenceTime + 365 * 86_400)
    static let height: UInt32 = 840_000 + 52_560

    @Test("the clock gives the expected height")
    func estimate() {
        #expect(LockTimeReview.estimatedHeight(at: Self.now) == Int64(Self.height))
        #expect(
            LockTimeReview.estimatedHeight(at: Date(timeIntervalSince1970: LockTimeReview.referenceTime)) == 840_000)
    }

    @Test("a mainnet height lock is warned about only past 13,000 blocks ahead")
    func heightBoundary() {
        func warning(_ height: UInt32, _ network: Network = .main) -> PSBTWarning? {
            LockTimeReview(lockTime: height, sequences: [0xFFFF_FFFD]).warning(network: network, now: Self.now)
        }
        #expect(warning(Self.height + 13_000) == nil)
        #expect(warning(Self.height + 13_001) == .farLocktimeHeight(height: Self.height + 13_001, blocksAhead: 13_001))
        #expect(warning(Self.height - 1) == nil)
        #expect(warning(1) == nil)
        // Test networks: the clock says nothing about their height; only a height past 5,000,000 is warned about.
        #expect(warning(Self.height + 100_000, .regtest) == nil)
        #expect(warning(5_000_000, .regtest) == nil)
        #expect(warning(5_000_001, .test) == .farLocktimeHeight(height: 5_000_001, blocksAhead: nil))
    }

    @Test("a time lock is warned about only past 90 days ahead, on every network")
    func timeBoundary() {
        let base = UInt32(Self.now.timeIntervalSince1970)
        for network in [Network.main, .regtest] {
            func warning(_ time: UInt32) -> PSBTWarning? {
                LockTimeReview(lockTime: time, sequences: [0xFFFF_FFFE]).warning(network: network, now: Self.now)
            }
            #expect(warning(base + 90 * 86_400) == nil)
            #expect(
                warning(base + 90 * 86_400 + 1)
                    == .farLocktimeTime(time: base + 90 * 86_400 + 1, secondsAhead: 7_776_001))
            #expect(warning(base - 86_400) == nil)
            #expect(warning(LockTime.threshold) == nil)
        }
    }

    @Test("kinds, RBF and enforcement come from nLockTime and the sequences")
    func kinds() {
        #expect(LockTimeReview(lockTime: 0, sequences: [0xFFFF_FFFF]).lock == .none)
        #expect(LockTimeReview(lockTime: 499_999_999, sequences: []).lock == .height(499_999_999))
        #expect(LockTimeReview(lockTime: 500_000_000, sequences: []).lock == .time(500_000_000))
        let rbf = LockTimeReview(lockTime: 10, sequences: [0xFFFF_FFFF, 0xFFFF_FFFD])
        #expect(rbf.signalsReplaceByFee && rbf.isEnforced)
        let final = LockTimeReview(lockTime: 10, sequences: [0xFFFF_FFFF])
        #expect(!final.signalsReplaceByFee && !final.isEnforced)
        #expect(final.words(network: .regtest, now: Self.now)?.contains("not enforced") == true)
        let noRBF = LockTimeReview(lockTime: 10, sequences: [0xFFFF_FFFE])
        #expect(!noRBF.signalsReplaceByFee && noRBF.isEnforced)
    }

    @Test("the words: a grouped height with the time to it, a UTC date")
    func words() {
        let height = LockTimeReview(lockTime: Self.height + 144, sequences: [0xFFFF_FFFD])
        #expect(
            height.words(network: .main, now: Self.now)
                == "not before block 892,704 (about 24 hours from now, at 10 minutes a block)")
        let time = LockTimeReview(lockTime: 1_924_992_000, sequences: [0xFFFF_FFFD])
        #expect(
            time.words(network: .regtest, now: Self.now)?.hasPrefix("not before 2031-01-01 00:00 UTC (about") == true)
        #expect(LockTimeReview.utc(1_713_614_940) == "2024-04-20 12:09 UTC")
    }
}
