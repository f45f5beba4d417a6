public import Bitcoin
public import Ethereum

/// A transaction's call as the renderer sees it: the chain, the target, the value, the sender and the call data.
public struct CallInput: Sendable {
    public var chainID: UInt64
    public var to: EthereumAddress
    public var value: UInt256
    public var from: EthereumAddress?
    public var data: [UInt8]

    public init(chainID: UInt64, to: EthereumAddress, value: UInt256, from: EthereumAddress?, data: [UInt8]) {
        self.chainID = chainID
        self.to = to
        self.value = value
        self.from = from
        self.data = data
    }
}

/// One field shown by a descriptor: its label (trusted, from the imported descriptor) and its rendered value
/// (from the request: untrusted, already through DisplayText).
public struct ClearField: Sendable, Equatable {
    public let label: String
    public let value: String
    /// The inner call of a `calldata` field, shown through its own descriptor.
    public let nested: ClearCall?
    /// The spec's warning for a value that could not be resolved ("Unknown token"), or nil.
    public let warning: String?
    public let hadHiddenCharacters: Bool
    /// The value as the request holds it, before escaping (for a review that escapes itself, and `--json`).
    public let rawValue: String
}

/// A request shown through a matching descriptor: who it is for, what it does, and each field.
public struct ClearCall: Sendable, Equatable {
    public let owner: String?
    /// `intent` of the format (a string, or an object's members as `key: value`).
    public let intent: String
    /// `interpolatedIntent` with every `{path}` replaced, or nil when the format has none or one did not resolve.
    public let interpolatedIntent: String?
    public let fields: [ClearField]
    /// Whether some value (at any depth) could not be shown through a descriptor, so part of it is still blind.
    public let hasBlindPart: Bool

    /// Whether any value shown (at any depth) held hidden characters.
    public var hadHiddenCharacters: Bool {
        fields.contains { $0.hadHiddenCharacters || $0.nested?.hadHiddenCharacters == true }
    }

    /// Every warning of every field, nested ones included.
    public var warnings: [String] {
        fields.flatMap { field in
            (field.warning.map { ["\(field.label): \($0)"] } ?? []) + (field.nested?.warnings ?? [])
        }
    }

    /// The review lines: the intent, then each field as `label: value`, nested calls indented.
    public func lines(indent: String = "") -> [String] {
        var result = [indent + "Intent: " + (interpolatedIntent ?? intent)]
        if let owner { result.append(indent + "For: " + owner) }
        for field in fields {
            if let nested = field.nested {
                result.append(indent + field.label + ":")
                result += nested.lines(indent: indent + "  ")
            } else {
                result.append(indent + field.label + ": " + field.value + (field.warning.map { " (\($0))" } ?? ""))
            }
        }
        return result
    }
}

/// The number forms of the renderer, for reviews that show other amounts beside a descriptor's fields.
public enum ClearSigningText {
    /// `amount / 10^decimals` with trailing zeros dropped and no exponent (`1`, `0.5`, `0.000001`).
    public static func decimal(_ amount: UInt256, decimals: Int) -> String {
        Renderer.decimal(amount, decimals: decimals)
    }

    /// The ticker of a chain's native currency (ETH unless the chain is known to use another).
    public static func nativeTicker(_ chainID: UInt64) -> String { Renderer.nativeTicker(chainID) }
}
