import Glibc

/// A POSIX semaphore: one thread waits until another signals (a loop's
/// thread answering work posted to it, for instance).
public final class Semaphore: @unchecked Sendable {
    // Unchecked: a sem_t is made for use from several threads; it lives at
    // a fixed address of its own.
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    /// A semaphore at 0: the first ``wait()`` waits for a ``signal()``.
    public init() { sem_init(semaphore, 0, 0) }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    /// Lets one waiting thread (or the next to wait) go on.
    public func signal() { sem_post(semaphore) }

    /// Waits for a ``signal()``.
    public func wait() {
        while sem_wait(semaphore) != 0 && errno == EINTR {}
    }
}
