import CLinux
import Glibc

/// Streams a growing download to the disk while it arrives, so that the
/// `fsync` at its end finds little left to write.
///
/// `curl -o` leaves a 1 GiB file in the page cache and returns; notifyd must
/// sync it before the move (SPEC: "synced to disk"), and one `fsync` of
/// 1 GiB at the end took 4.1 of the download's 4.9 s. So each time a window
/// of ``window`` bytes is full, its writeback starts (`sync_file_range`
/// with `SYNC_FILE_RANGE_WRITE`, which does not wait), and the window
/// before it is waited for and dropped from the page cache
/// (`POSIX_FADV_DONTNEED`): the disk writes while the network reads, a
/// download holds at most two windows of dirty pages, and a large download
/// does not push the user's working set out of memory. The wait is the
/// engine thread's, never the bus thread's; it slows a download only to
/// the disk's own speed. Public for notifyd-bench, whose event-loop
/// variant of the engine streams its file out the same way.
///
/// `sync_file_range` neither writes metadata nor flushes the disk's cache,
/// so the final `fsync` stays what makes the file durable. A write-back
/// error is taken from the range's wait and thrown: once reported there it
/// would not be reported again to the `fsync` on the same descriptor.
public struct WritebackPacer {
    /// The bytes after which writeback of a window starts.
    public static let window: UInt64 = 16 << 20

    /// Where the window being filled starts (writeback not yet started).
    private var windowStart: UInt64
    /// Where the window under writeback, not yet waited for, starts.
    private var writingStart: UInt64?
    /// False once the file system refused the call (it is then left to `fsync`).
    private var supported = true

    /// A pacer for a file whose first `offset` bytes are already there
    /// (a resumed download: they are left to the final `fsync`).
    public init(from offset: UInt64) {
        windowStart = offset
    }

    /// Called after each write, with the file's `size` now: starts the
    /// writeback of a full window and waits for the one before it.
    ///
    /// - Throws: ``TransferFault`` when the disk reported a write error.
    public mutating func wrote(upTo size: UInt64, descriptor: Int32) throws(TransferFault) {
        guard supported, size >= windowStart + Self.window else { return }
        if let writingStart {
            try settle(descriptor, from: writingStart, length: windowStart - writingStart)
        }
        guard supported else { return }
        try run(descriptor, from: windowStart, length: size - windowStart, wait: false)
        writingStart = windowStart
        windowStart = size
    }

    /// Waits for the range to be on the disk, then drops it from the page cache.
    private mutating func settle(_ descriptor: Int32, from offset: UInt64, length: UInt64) throws(TransferFault) {
        try run(descriptor, from: offset, length: length, wait: true)
        _ = posix_fadvise(descriptor, off_t(offset), off_t(length), POSIX_FADV_DONTNEED)
    }

    private mutating func run(_ descriptor: Int32, from offset: UInt64, length: UInt64, wait: Bool) throws(TransferFault) {
        do {
            try TransferCall.system("the file could not be written to disk") {
                clinux_sync_file_range(descriptor, Int64(offset), Int64(length), wait ? 1 : 0, wait ? 1 : 0)
            }
        } catch let fault where fault.errno == ENOSYS || fault.errno == EINVAL || fault.errno == ESPIPE {
            supported = false
        }
    }
}
