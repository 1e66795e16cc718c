import Glibc
import NotifyTestingCore

/// The disk's own speed for a durable file, the ceiling of any download
/// that must be "synced to disk" (SPEC) before it is moved into place:
/// the same number of bytes written from memory with `write(2)` in 1 MiB
/// blocks, then one `fsync`, timed together. No network, no TLS, no
/// server: what is left is the page cache and the disk.
enum DiskWriteBaseline {
    /// Writes `bytes` (a 1 MiB pseudo-random block repeated) at `path`,
    /// syncs it, removes it, and returns how long the write and the sync took.
    static func time(bytes: UInt64, at path: String) throws(BenchFailure) -> TransferBenchmark.DownloadRun {
        var generator = SplitMix64(seed: 0x6469_736B)
        let blockSize = SourceFile.blockSize
        var block = [UInt8](repeating: 0, count: blockSize)
        block.withUnsafeMutableBytes { raw in
            for index in 0..<(blockSize / 8) { raw.storeBytes(of: generator.next(), toByteOffset: index * 8, as: UInt64.self) }
        }
        let start = MonotonicClock.nanoseconds()
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BenchFailure.system("cannot create \(path)", errno: errno) }
        defer {
            close(descriptor)
            unlink(path)
        }
        var left = bytes
        while left > 0 {
            let length = Int(min(left, UInt64(blockSize)))
            let count = block.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress!, length) }
            guard count > 0 else { throw BenchFailure.system("cannot write \(path)", errno: errno) }
            left -= UInt64(count)
        }
        let written = MonotonicClock.nanoseconds()
        guard fsync(descriptor) == 0 else { throw BenchFailure.system("cannot sync \(path)", errno: errno) }
        let synced = MonotonicClock.nanoseconds()
        return .init(nanoseconds: written - start, cpuNanoseconds: 0, syncNanoseconds: synced - written)
    }
}
