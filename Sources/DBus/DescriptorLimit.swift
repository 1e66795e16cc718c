import Glibc
import Synchronization

/// The process's limit on open file descriptors (`RLIMIT_NOFILE`), next to
/// the event loop that needs it: a service that polls many connections
/// raises it, and the children it spawns get the one it started with.
///
/// The usual soft limit is 1024, kept low for programs that still use
/// `select()`; the hard limit is far higher (524288 under systemd). notifyd
/// uses epoll and poll only, so it raises its soft limit to the hard one at
/// start-up, as systemd recommends for such services, and gives the apps
/// it launches the soft limit it was started with.
public enum DescriptorLimit {
    /// The soft limit notifyd started with, for the children it spawns.
    private static let inherited = Atomic<UInt64>(UInt64.max)

    /// Raises the soft limit to the hard one; returns both soft limits
    /// (before, after), or nil when the limit cannot be read.
    @discardableResult
    public static func raiseToHardLimit() -> (before: UInt64, after: UInt64)? {
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else { return nil }
        let before = UInt64(limit.rlim_cur)
        inherited.store(before, ordering: .relaxed)
        guard limit.rlim_cur < limit.rlim_max else { return (before, before) }
        limit.rlim_cur = limit.rlim_max
        guard setrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else { return (before, before) }
        return (before, UInt64(limit.rlim_max))
    }

    /// In a child between fork and exec (async-signal-safe): puts back the
    /// soft limit notifyd inherited, if it raised it.
    public static func restoreInChild() {
        let soft = inherited.load(ordering: .relaxed)
        guard soft != UInt64.max else { return }
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0, UInt64(limit.rlim_cur) != soft else { return }
        limit.rlim_cur = rlim_t(soft)
        _ = setrlimit(RLIMIT_NOFILE_VALUE, &limit)
    }

    /// Glibc imports `RLIMIT_NOFILE` as an enum case of `__rlimit_resource`.
    private static var RLIMIT_NOFILE_VALUE: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }
}
