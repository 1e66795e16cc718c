import CLinux
import Glibc
import Synchronization

/// The commands waiting for a worker's thread, behind a lock, and an
/// eventfd that is readable while any wait: the thread polls it together
/// with its sockets (the XMPP socket; libcurl's, as an extra descriptor of
/// `curl_multi_poll`), so a command wakes it at once and nothing else
/// does.
public final class CommandMailbox<Command: Sendable>: Sendable {
    private let commands = Mutex<[Command]>([])
    /// Readable while commands wait; `-1` when none could be made (then
    /// the thread takes commands at each turn of a bounded wait instead).
    public let wakeDescriptor: Int32

    /// An empty mailbox with its eventfd (non-blocking, close-on-exec).
    public init() {
        wakeDescriptor = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
    }

    deinit {
        if wakeDescriptor >= 0 { close(wakeDescriptor) }
    }

    /// Leaves `command` for the thread and wakes it.
    public func post(_ command: Command) {
        commands.withLock { $0.append(command) }
        guard wakeDescriptor >= 0 else { return }
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, 8)
    }

    /// Takes every waiting command, at once, oldest first.
    public func take() -> [Command] {
        if wakeDescriptor >= 0 {
            var count: UInt64 = 0
            _ = read(wakeDescriptor, &count, 8)
        }
        return commands.withLock { commands in
            defer { commands.removeAll(keepingCapacity: true) }
            return commands
        }
    }
}

/// Elapsed time, sleep included (`CLOCK_BOOTTIME`), in nanoseconds: a
/// backoff counts the time the machine slept.
public enum MonotonicTime {
    /// Now, in nanoseconds since boot.
    public static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// `duration` from now, in these nanoseconds.
    public static func after(_ duration: Duration) -> UInt64 { nanoseconds() + nanoseconds(of: duration) }

    /// `duration` in nanoseconds (0 for a negative one).
    public static func nanoseconds(of duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds / 1_000_000_000))
    }

    /// Milliseconds from now until `deadline`, rounded up, for `poll`.
    public static func millisecondsUntil(_ deadline: UInt64) -> Int32 {
        let now = nanoseconds()
        guard deadline > now else { return 0 }
        return Int32(clamping: (deadline - now + 999_999) / 1_000_000)
    }
}
