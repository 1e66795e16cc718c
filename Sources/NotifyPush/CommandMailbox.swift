import Glibc

/// What other threads ask of the client's thread.
enum XMPPPushCommand: Sendable, Equatable {
    case configure(XMPPPushSettings?)
    case register(application: [UInt8], instance: [UInt8])
    case acknowledge(PushID)
    case refuse(PushID)
    case networkReturned
    case stop
}

/// The commands waiting for the client's thread, behind a lock; the thread
/// takes them all at each turn, or sleeps on them while it has no
/// connection to run.
final class CommandMailbox: @unchecked Sendable {
    // Unchecked: every access to `commands` holds `mutex`; the mutex and
    // the condition live at fixed addresses of their own.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var commands: [XMPPPushCommand] = []

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Leaves `command` for the thread and wakes it if it sleeps.
    func post(_ command: XMPPPushCommand) {
        pthread_mutex_lock(mutex)
        commands.append(command)
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Takes every waiting command; when there is none, first waits for
    /// one until `deadline` (monotonic nanoseconds; `nil`: no wait,
    /// `.max`: no limit).
    func take(waitingUntil deadline: UInt64?) -> [XMPPPushCommand] {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if let deadline {
            while commands.isEmpty {
                if deadline == .max {
                    pthread_cond_wait(condition, mutex)
                    continue
                }
                guard MonotonicTime.nanoseconds() < deadline else { break }
                var until = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
                pthread_cond_timedwait(condition, mutex, &until)
            }
        }
        defer { commands.removeAll(keepingCapacity: true) }
        return commands
    }
}

/// The monotonic clock, in nanoseconds.
enum MonotonicTime {
    static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// `duration` from now, in monotonic nanoseconds.
    static func after(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return nanoseconds() + UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds / 1_000_000_000))
    }
}
