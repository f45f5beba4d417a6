import Foundation
import Testing

@testable import CLISupport

/// The `--json` plumbing of the CLI contract (DESIGN.md section 2): snake_case keys, `null` for absent values that
/// must stay in the document, the error object, and when `--json` counts as asked for.
@Suite("JSON output")
struct JSONOutputTests {
    struct Sample: Encodable {
        let masterFingerprint: String
        let feeRateSatPerKvb: Int
        @NullEncoded var height: Int?
        let note: String?
    }

    private func text(_ value: some Encodable) throws -> String {
        String(decoding: try JSONOutput.encode(value), as: UTF8.self)
    }

    @Test("keys are snake_case; @NullEncoded writes null; a plain optional is left out")
    func keysAndNulls() throws {
        let absent = try text(Sample(masterFingerprint: "d34db33f", feeRateSatPerKvb: 2000, height: nil, note: nil))
        #expect(
            absent == """
                {
                  "fee_rate_sat_per_kvb" : 2000,
                  "height" : null,
                  "master_fingerprint" : "d34db33f"
                }
                """)
        let present = try text(Sample(masterFingerprint: "00", feeRateSatPerKvb: 1, height: 7, note: "n"))
        #expect(present.contains("\"height\" : 7") && present.contains("\"note\" : \"n\""))
    }

    @Test("the error object is {\"error\": {\"code\": N, \"message\": …}}")
    func errorObject() throws {
        let output = ErrorReporting.ErrorOutput(error: .init(code: ExitStatus.authentication.rawValue, message: "no"))
        let parsed = try JSONSerialization.jsonObject(with: JSONOutput.encode(output)) as? [String: [String: Any]]
        #expect(parsed?.keys.sorted() == ["error"])
        #expect(parsed?["error"]?["code"] as? Int == 3)
        #expect(parsed?["error"]?["message"] as? String == "no")
    }

    @Test(
        "--json counts before a -- terminator only",
        arguments: [
            (["airlock-watcher", "balance", "--json"], true),
            (["airlock-watcher", "--json", "balance"], true),
            (["airlock-watcher", "balance"], false),
            (["airlock-watcher", "import", "--", "--json"], false),
            (["airlock-watcher", "balance", "--jsonx"], false),
        ])
    func jsonMode(arguments: [String], expected: Bool) {
        #expect(JSONMode.isRequested(arguments) == expected)
    }

    @Test("report maps each error to its exit status")
    func reportStatus() {
        #expect(ErrorReporting.report(CLIError(.network, "down"), json: false) == .network)
        struct Other: Error {}
        #expect(ErrorReporting.report(Other(), json: false) == .invalidInput)
    }
}
