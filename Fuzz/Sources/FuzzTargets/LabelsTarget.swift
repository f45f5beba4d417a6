// FuzzLabels: text as a BIP329 labels file (JSON Lines) through `LabelsFile.parse`, as `airlock-watcher labels
// import` reads it; what parses is written back and read again to the same labels. Any trap is a bug.
import Watcher

extension FuzzTargets {
    /// One input of FuzzLabels.
    public static func labels(_ bytes: [UInt8]) {
        guard let labels = try? LabelsFile.parse(String(decoding: bytes, as: UTF8.self)) else { return }
        guard let again = try? LabelsFile.parse(LabelsFile.serialize(labels)) else {
            preconditionFailure("labels written by serialize do not parse")
        }
        precondition(again.count == labels.count, "a label was lost writing labels back")
        for label in again { precondition(labels.contains(label), "a label changed writing labels back") }
    }
}
