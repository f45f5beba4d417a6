// SwiftPM links an executable target with `main` aliased to `<Target>_main`, so each target defines that symbol and
// hands control to libFuzzer's driver (LLVMFuzzerRunDriver) with its one-input closure.

@_silgen_name("LLVMFuzzerRunDriver")
private func llvmFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

nonisolated(unsafe) private var body: ([UInt8]) -> Void = { _ in }

/// Runs libFuzzer with `test` as the one-input function; returns libFuzzer's exit status.
public func runFuzzer(
    _ argc: Int32,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
    _ test: @escaping ([UInt8]) -> Void
) -> Int32 {
    body = test
    var count = argc
    var vector = argv
    return llvmFuzzerRunDriver(&count, &vector) { data, size in
        body(size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }
}
