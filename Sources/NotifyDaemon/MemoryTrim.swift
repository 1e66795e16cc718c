import DBus
import Glibc

/// Gives freed heap memory back to the kernel after a large reply, and
/// after the state shrank by many items (``Committer``). What glibc keeps
/// to begin with is set at startup (``AllocatorPolicy``).
///
/// A reply of 100,000 rows takes about 12 MB in libdbus's buffer, plus the
/// rows it was built from. Once freed, glibc keeps that memory in the heap
/// (and after the first such free it serves later large blocks from the
/// heap rather than from `mmap`), so the daemon's resident size would stay
/// up. `malloc_trim(0)` returns every free page of every arena.
enum MemoryTrim {
    /// How often to look whether the reply has left the socket.
    static let pollNanoseconds: UInt64 = 10_000_000
    /// How long to wait for it at most (a slow reader holds it in the queue).
    static let maximumPolls = 1_000
    /// Queued bytes below which the large reply counts as written.
    static let drainedBytes = 64 * 1024
    /// Sessions, pending handlers and badged apps the state must have held
    /// for its clearing to trim the heap (about 7 MB at their cost per item,
    /// docs/PERFORMANCE.md).
    static let freedItems = 10_000
    /// Items freed between two trims while such a state is cleared.
    static let trimEvery = 1_000

    /// Trims once `connection` has written what is queued (or after about
    /// 10 s), on `loop`.
    static func afterWriting(on connection: DBusConnection, loop: EventLoop, polls: Int = 0) {
        loop.scheduleTimer(afterNanoseconds: pollNanoseconds) { [weak connection] in
            guard let connection else { return }
            if connection.outgoingBytes > drainedBytes && polls < maximumPolls {
                afterWriting(on: connection, loop: loop, polls: polls + 1)
            } else {
                trim()
            }
        }
    }

    /// `malloc_trim(0)`, looked up at run time: Swift's Glibc module does not
    /// export `<malloc.h>`. Nothing happens where it does not exist.
    static func trim() {
        guard let trim = mallocTrim else { return }
        _ = trim(0)
    }

    private typealias TrimFunction = @convention(c) (Int) -> Int32

    private static let mallocTrim: TrimFunction? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: TrimFunction.self)
    }()
}
