import Glibc
import NotifyTestingCore

/// Plain POSIX threads for the load section's clients, one per client,
/// each running the same body with its index (the benchmark does without
/// Foundation and Dispatch, so that a client thread blocks in libdbus and
/// nowhere else).
final class ClientThreads {
    private var threads: [PosixThread] = []

    /// Starts `count` threads running `body(index)`. If one cannot be
    /// started, `onFailure` runs (it must let the started ones finish, e.g.
    /// by breaking their barrier), they are joined, and the error is thrown.
    init(
        count: Int, onFailure: () -> Void, _ body: @escaping @Sendable (Int) -> Void
    ) throws(BenchFailure) {
        for index in 0..<count {
            do {
                threads.append(try PosixThread { body(index) })
            } catch {
                onFailure()
                join()
                throw BenchFailure("client thread \(index + 1) of \(count): \(error)")
            }
        }
    }

    /// Waits until every thread has ended.
    func join() {
        for thread in threads { thread.join() }
        threads = []
    }
}

/// Where a fixed number of threads meet between the phases of the load
/// section: each waits in ``arriveAndWait()`` until all have arrived.
///
/// A pthread mutex and condition variable, because `Synchronization.Mutex`
/// cannot wait for a condition. `@unchecked Sendable`: every stored
/// variable is read and written with `mutex` held.
final class ThreadBarrier: @unchecked Sendable {
    private let parties: Int
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var arrived = 0
    private var generation = 0
    private var broken = false

    init(parties: Int) {
        self.parties = parties
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    /// Blocks until all parties have arrived. False when the barrier was
    /// broken: the phases are off and the caller should end.
    @discardableResult
    func arriveAndWait() -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard !broken else { return false }
        let mine = generation
        arrived += 1
        if arrived == parties {
            arrived = 0
            generation += 1
            pthread_cond_broadcast(condition)
            return true
        }
        while generation == mine && !broken {
            pthread_cond_wait(condition, mutex)
        }
        return generation != mine
    }

    /// Releases every waiter, now and later, with false.
    func breakBarrier() {
        pthread_mutex_lock(mutex)
        broken = true
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }
}
