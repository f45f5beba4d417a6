import Dispatch
import Foundation
import Synchronization

extension QRReader {
    /// The result of reading one file in a batch.
    public struct FileResult: Sendable {
        /// The path that was read.
        public let path: String
        /// The codes found, in reading order, or the error that reading the file ended with.
        public let result: Result<[DecodedQRCode], QRImageError>
    }

    /// Reads many PNG files concurrently, one reader (with its own zbar scanner) per worker thread.
    ///
    /// Results come back in the order of `paths`. A file that fails does not stop the others.
    ///
    /// - Parameters:
    ///   - paths: the PNG files.
    ///   - workers: the number of threads; `nil` for the number of active processors.
    ///   - maxPixels: the largest image accepted in each file.
    ///   - thorough: as for `init(maxPixels:thorough:)`.
    /// - Returns: one result per path, in the order of `paths`.
    public static func readFiles(
        atPaths paths: [String],
        workers: Int? = nil,
        maxPixels: Int = QRReader.defaultMaxPixels,
        thorough: Bool = false
    ) -> [FileResult] {
        let next = Atomic<Int>(0)
        let slots = Mutex<[Result<[DecodedQRCode], QRImageError>?]>(Array(repeating: nil, count: paths.count))
        DispatchQueue.concurrentPerform(
            iterations: max(1, min(workers ?? ProcessInfo.processInfo.activeProcessorCount, paths.count))
        ) { _ in
            let reader: QRReader
            do {
                reader = try QRReader(maxPixels: maxPixels, thorough: thorough)
            } catch {
                // Without a scanner this worker takes no files; the others (or the fallback below) read them.
                return
            }
            while true {
                let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < paths.count else { return }
                let result: Result<[DecodedQRCode], QRImageError>
                do throws(QRImageError) {
                    result = .success(try reader.read(contentsOfFile: paths[index]))
                } catch {
                    result = .failure(error)
                }
                slots.withLock { $0[index] = result }
            }
        }
        let results = slots.withLock { $0 }
        return zip(paths, results).map { path, result in
            FileResult(path: path, result: result ?? .failure(.scannerSetupFailed(code: -1)))
        }
    }
}
