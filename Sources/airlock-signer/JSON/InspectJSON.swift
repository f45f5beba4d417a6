import CLISupport
import Codecs
import Descriptors

/// `inspect --json`: one of four shapes, told apart by `type` (psbt, transaction, address, descriptor).
enum InspectJSON: Encodable, Sendable {
    case psbt(PSBTReportJSON)
    case transaction(Transaction)
    case address(Address)
    case descriptor(Descriptor)

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .psbt(let value): try value.encode(to: encoder)
        case .transaction(let value): try value.encode(to: encoder)
        case .address(let value): try value.encode(to: encoder)
        case .descriptor(let value): try value.encode(to: encoder)
        }
    }

    /// A network transaction.
    struct Transaction: Encodable, Sendable {
        /// One output.
        struct Output: Encodable, Sendable {
            let index: Int
            let amount: UInt64
            let script: String
            @NullEncoded var address: String?
        }
        var type = "transaction"
        let txid: String
        let vsize: Int
        let inputs: [String]
        let outputs: [Output]
    }

    /// An address and the networks it is valid on.
    struct Address: Encodable, Sendable {
        var type = "address"
        let address: String
        let networks: [String]
        let scripts: [String]
    }

    /// A descriptor: the first branch's scripts and addresses, and every branch under `paths`.
    struct Descriptor: Encodable, Sendable {
        /// One branch of a multipath descriptor.
        struct Path: Encodable, Sendable {
            let descriptor: String
            let scripts: [String]
            let addresses: [String?]
        }
        var type = "descriptor"
        let descriptor: String
        let network: String
        let scripts: [String]
        let addresses: [String?]
        let paths: [Path]
    }
}
