import Glibc

/// Why part of the benchmark could not run (as opposed to a missed target,
/// which is a result).
struct BenchFailure: Error, CustomStringConvertible {
    /// What went wrong, for the person running the benchmark.
    let description: String

    init(_ description: String) {
        self.description = description
    }

    /// A failed C call: what was attempted and `strerror(errno)`.
    static func system(_ what: String, errno code: Int32) -> BenchFailure {
        BenchFailure("\(what): \(String(cString: strerror(code)))")
    }
}
