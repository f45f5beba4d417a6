import Foundation

/// When a wallet was first used: a block height or a day (UTC), so a node-side rescan need not start at genesis.
public enum WalletBirthday: Sendable, Equatable, CustomStringConvertible {
    /// The first block that may hold the wallet's transactions.
    case height(Int)
    /// The first day (UTC midnight, as a Unix time) that may hold them.
    case date(Int)

    /// Parses `HEIGHT` (0...10,000,000) or `YYYY-MM-DD` (2009-01-03 or later); nil for anything else.
    public init?(string: String) {
        let text = string.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.allSatisfy(\.isASCIIDigitCharacter) {
            guard text.count <= 8, let height = Int(text), height <= 10_000_000 else { return nil }
            self = .height(height)
            return
        }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigitCharacter) }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        guard let utc = TimeZone(identifier: "UTC") else { return nil }
        calendar.timeZone = utc
        let components = DateComponents(year: year, month: month, day: day)
        guard components.isValidDate(in: calendar), let date = calendar.date(from: components) else { return nil }
        let time = Int(date.timeIntervalSince1970)
        // The genesis block's day.
        guard time >= 1_230_940_800 else { return nil }
        self = .date(time)
    }

    /// `HEIGHT` or `YYYY-MM-DD`, as parsed.
    public var description: String {
        switch self {
        case .height(let height): "\(height)"
        case .date(let time):
            {
                let formatter = DateFormatter()
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.timeZone = TimeZone(identifier: "UTC")
                formatter.dateFormat = "yyyy-MM-dd"
                return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(time)))
            }()
        }
    }
}

extension Character {
    fileprivate var isASCIIDigitCharacter: Bool { ("0"..."9").contains(self) }
}

extension Store {
    static func birthdayKey(_ walletName: String) -> String { "wallet.\(walletName).birthday" }

    /// The birthday stored with the wallet `walletName` at import, if any.
    public func birthday(walletName: String) throws(StoreError) -> WalletBirthday? {
        guard let text = try setting(Self.birthdayKey(walletName)) else { return nil }
        guard let birthday = WalletBirthday(string: text) else {
            throw .corrupt("birthday '\(text)' of wallet '\(walletName)'")
        }
        return birthday
    }

    /// Stores (or with nil, removes) the birthday of `walletName`.
    public func setBirthday(_ birthday: WalletBirthday?, walletName: String) throws(StoreError) {
        try setSetting(Self.birthdayKey(walletName), birthday?.description)
    }
}
