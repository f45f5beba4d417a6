import Bitcoin
public import Ethereum

/// An ERC-20 token the signer knows: the review shows its amounts in token units with its symbol (docs/signer.md,
/// "Tokens").
public struct EthereumToken: Sendable, Equatable {
    /// The chain it lives on.
    public let chainID: UInt64
    /// Its contract.
    public let address: EthereumAddress
    /// Its symbol, as the user or the built-in list names it.
    public let symbol: String
    /// Its decimals (base units per token: 10^decimals).
    public let decimals: UInt8

    /// A token from its fields.
    public init(chainID: UInt64, address: EthereumAddress, symbol: String, decimals: UInt8) {
        self.chainID = chainID
        self.address = address
        self.symbol = symbol
        self.decimals = decimals
    }

    /// A token as `token add` takes it: the address as text (EIP-55 checked when mixed case), a symbol of 1 to 16
    /// letters, digits or `.-_$+`, at most 36 decimals, a chain id above 0.
    ///
    /// - Throws: `EthereumTokenError` naming what is wrong.
    public init(chainID: UInt64, address text: String, symbol: String, decimals: Int) throws(EthereumTokenError) {
        guard chainID > 0 else { throw .invalid("--chain-id must be above 0") }
        let address: EthereumAddress
        do { address = try EthereumAddress(string: text) } catch {
            throw .invalid("'\(DisplayText.clean(String(text.prefix(64))))' is not an Ethereum address: \(error)")
        }
        guard Self.isValidSymbol(symbol) else {
            throw .invalid("--symbol must be 1 to 16 letters, digits or . - _ $ +")
        }
        guard (0...Int(Self.maximumDecimals)).contains(decimals) else {
            throw .invalid("--decimals must be 0 to \(Self.maximumDecimals)")
        }
        self.init(chainID: chainID, address: address, symbol: symbol, decimals: UInt8(decimals))
    }

    /// The longest symbol accepted (`token add`).
    public static let maximumSymbolLength = 16
    /// The most decimals accepted (`token add`).
    public static let maximumDecimals: UInt8 = 36

    /// Whether `symbol` is a symbol `token add` accepts: 1 to 16 printable ASCII letters, digits or `.-_$+`.
    public static func isValidSymbol(_ symbol: String) -> Bool {
        !symbol.isEmpty && symbol.unicodeScalars.count <= maximumSymbolLength
            && symbol.unicodeScalars.allSatisfy { s in
                (0x30...0x39).contains(s.value) || (0x41...0x5A).contains(s.value) || (0x61...0x7A).contains(s.value)
                    || ".-_$+".unicodeScalars.contains(s)
            }
    }

    /// `amount` base units in token units: `12.5 USDC` (trailing fraction zeros dropped).
    public func format(_ amount: UInt256) -> String {
        var text = Wei.decimal(amount, scale: Int(decimals))
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text + " " + symbol
    }

    /// The built-in list (mainnet; source in Sources/Signer/Ethereum/Tokens/README.md).
    public static let builtIn: [EthereumToken] = BuiltInTokens.mainnet.compactMap { entry in
        guard let address = try? EthereumAddress(string: entry.address) else { return nil }
        return EthereumToken(chainID: 1, address: address, symbol: entry.symbol, decimals: entry.decimals)
    }

    /// The token at `address` on `chainID` among `userTokens` (first) and the built-in list.
    public static func find(chainID: UInt64?, address: EthereumAddress, userTokens: [EthereumToken])
        -> EthereumToken?
    {
        guard let chainID else { return nil }
        return (userTokens + builtIn).first { $0.chainID == chainID && $0.address == address }
    }
}

/// Why `token add` refuses a token.
public enum EthereumTokenError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong.
    case invalid(String)

    public var description: String {
        switch self {
        case .invalid(let why): why
        }
    }
}

extension EthereumToken {
    /// The built-in token at this token's contract and chain, if the built-in list has one.
    public var shadowedBuiltIn: EthereumToken? {
        Self.builtIn.first { $0.chainID == chainID && $0.address == address }
    }

    /// What `token add` shows before adding: symbol, decimals, contract, chain, and a warning when the token takes
    /// the place of a built-in entry at the same contract (the added entry is used first).
    public var additionReview: String {
        var text = "Token: \(symbol), \(decimals) decimals\nContract: \(address.checksummed)\nChain: \(chainID)"
        if let builtIn = shadowedBuiltIn {
            text +=
                "\n!!! the built-in list names this contract \(builtIn.symbol) with \(builtIn.decimals) "
                + "decimals; the added entry is used first"
        }
        return text
    }
}
