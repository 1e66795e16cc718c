import CLinux
import Glibc
import Synchronization

/// A single-threaded event loop over epoll: file descriptors, timers,
/// work posted from other threads, and observers that run before it sleeps.
///
/// Everything but ``execute(_:)`` and ``stop()`` must be called on the
/// loop's thread (the thread that created it, then the one that runs it).
/// The loop sleeps in `epoll_wait` with no timeout when no timer is
/// pending, so an idle loop causes no wake-ups at all.
public final class EventLoop: @unchecked Sendable {
    // Sendable: the only state touched from other threads is `inbox` (a
    // Mutex), `owner` and `stopRequested` (atomics) and the eventfd.
    // Everything else is confined to the loop thread, which is asserted.

    /// Readiness of a file descriptor.
    public struct Events: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let readable = Events(rawValue: UInt32(EPOLLIN.rawValue))
        public static let writable = Events(rawValue: UInt32(EPOLLOUT.rawValue))
        public static let error = Events(rawValue: UInt32(EPOLLERR.rawValue))
        public static let hangup = Events(rawValue: UInt32(EPOLLHUP.rawValue))
    }

    /// Identifies a descriptor registration.
    public struct DescriptorID: Hashable, Sendable { let value: UInt64 }
    /// Identifies a timer.
    public struct TimerID: Hashable, Sendable { let value: UInt64 }

    private struct Registration {
        var fd: Int32
        var events: Events
        var handler: (Events) -> Void
    }

    private let epollFD: Int32
    private let wakeFD: Int32
    private let inbox = Mutex<[@Sendable () -> Void]>([])
    private let owner: Atomic<UInt>
    private let stopRequested = Atomic<Bool>(false)

    private var registrations: [DescriptorID: Registration] = [:]
    private var registrationsByFD: [Int32: [DescriptorID]] = [:]
    private var nextDescriptorID: UInt64 = 1
    private var timers = TimerQueue()
    private var soon: [() -> Void] = []
    private var beforeSleep: [(id: UInt64, handler: () -> Void)] = []
    private var nextObserverID: UInt64 = 1

    /// Creates a loop owned by the calling thread.
    public init() throws(DBusError) {
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw Self.systemError("epoll_create1") }
        wakeFD = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        guard wakeFD >= 0 else {
            close(epollFD)
            throw Self.systemError("eventfd")
        }
        owner = Atomic(UInt(pthread_self()))
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = wakeFD
        epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event)
    }

    deinit {
        close(wakeFD)
        close(epollFD)
    }

    static func systemError(_ what: String) -> DBusError {
        DBusError(DBusError.Name.failed, "\(what) failed: \(String(cString: strerror(errno)))")
    }

    /// Whether the caller is on the loop's thread.
    public var inLoopThread: Bool { owner.load(ordering: .relaxed) == UInt(pthread_self()) }

    func assertInLoop(_ function: StaticString = #function) {
        assert(inLoopThread, "EventLoop.\(function) called off the loop thread")
    }

    /// Monotonic time in nanoseconds.
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    // MARK: Work

    /// Runs `work` on the loop thread soon. Safe from any thread.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        inbox.withLock { $0.append(work) }
        wake()
    }

    /// Runs `work` on the loop thread after the current callback returns.
    public func runSoon(_ work: @escaping () -> Void) {
        assertInLoop()
        soon.append(work)
    }

    /// Drops work posted but not run, once the loop has stopped and no
    /// other thread posts any more (shutdown). Posted work often holds the
    /// loop itself (``LoopBound``), so work left in the queue would keep
    /// the loop, and all it holds, alive in a cycle.
    public func discardPostedWork() {
        assertInLoop()
        inbox.withLock { $0.removeAll() }
        soon.removeAll()
    }

    /// Asks ``run()`` to return. Safe from any thread.
    public func stop() {
        stopRequested.store(true, ordering: .relaxed)
        wake()
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    /// Adds an observer that runs each time the loop has handled all ready
    /// events and is about to sleep (used to dispatch messages and to commit
    /// state in groups). Observers run in the order they were added.
    @discardableResult
    public func addBeforeSleepObserver(_ handler: @escaping () -> Void) -> UInt64 {
        assertInLoop()
        let id = nextObserverID
        nextObserverID += 1
        beforeSleep.append((id, handler))
        return id
    }

    /// Removes an observer.
    public func removeBeforeSleepObserver(_ id: UInt64) {
        beforeSleep.removeAll { $0.id == id }
    }

    // MARK: Timers

    /// Calls `handler` once, `nanoseconds` from now.
    @discardableResult
    public func scheduleTimer(afterNanoseconds nanoseconds: UInt64, _ handler: @escaping () -> Void) -> TimerID {
        scheduleTimer(atNanoseconds: Self.now() &+ nanoseconds, handler)
    }

    /// Calls `handler` once, at a monotonic time (see ``now()``).
    @discardableResult
    public func scheduleTimer(atNanoseconds deadline: UInt64, _ handler: @escaping () -> Void) -> TimerID {
        assertInLoop()
        return timers.schedule(at: deadline, handler)
    }

    /// Cancels a timer that has not fired yet.
    public func cancelTimer(_ id: TimerID) {
        assertInLoop()
        timers.cancel(id)
    }

    /// Number of timers pending.
    public var pendingTimers: Int { timers.count }

    // MARK: Descriptors

    /// Watches `fd` for `events`; several registrations may share one fd.
    public func addDescriptor(_ fd: Int32, events: Events, _ handler: @escaping (Events) -> Void) -> DescriptorID {
        assertInLoop()
        let id = DescriptorID(value: nextDescriptorID)
        nextDescriptorID += 1
        let isNew = registrationsByFD[fd] == nil
        registrations[id] = Registration(fd: fd, events: events, handler: handler)
        registrationsByFD[fd, default: []].append(id)
        updateEpoll(fd, adding: isNew)
        return id
    }

    /// Changes the events a registration waits for (empty: none).
    public func updateDescriptor(_ id: DescriptorID, events: Events) {
        assertInLoop()
        guard let fd = registrations[id]?.fd else { return }
        registrations[id]?.events = events
        updateEpoll(fd, adding: false)
    }

    /// Removes a registration.
    public func removeDescriptor(_ id: DescriptorID) {
        assertInLoop()
        guard let registration = registrations.removeValue(forKey: id) else { return }
        let fd = registration.fd
        registrationsByFD[fd]?.removeAll { $0 == id }
        if registrationsByFD[fd]?.isEmpty ?? true {
            registrationsByFD[fd] = nil
            epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)
        } else {
            updateEpoll(fd, adding: false)
        }
    }

    private func updateEpoll(_ fd: Int32, adding: Bool) {
        var mask = Events()
        for id in registrationsByFD[fd] ?? [] { mask.formUnion(registrations[id]?.events ?? []) }
        var event = epoll_event()
        event.events = mask.intersection([.readable, .writable]).rawValue
        event.data.fd = fd
        epoll_ctl(epollFD, adding ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event)
    }

    // MARK: Running

    /// Runs the loop on the calling thread until ``stop()``.
    public func run() {
        owner.store(UInt(pthread_self()), ordering: .relaxed)
        stopRequested.store(false, ordering: .relaxed)
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while !stopRequested.load(ordering: .relaxed) {
            runPendingWork()
            if stopRequested.load(ordering: .relaxed) { break }
            let timeout = sleepTimeout()
            let ready = epoll_wait(epollFD, &events, Int32(events.count), timeout)
            if ready < 0 { continue }  // EINTR
            for index in 0..<Int(ready) { handleReady(events[index]) }
        }
    }

    /// Runs due timers, posted work and observers until nothing is left.
    private func runPendingWork() {
        repeat {
            let now = Self.now()
            while let timer = timers.popDue(now: now) { timer() }
            let posted = inbox.withLock { work -> [@Sendable () -> Void] in
                defer { work.removeAll() }
                return work
            }
            for work in posted { work() }
            while !soon.isEmpty {
                let batch = soon
                soon.removeAll()
                for work in batch { work() }
            }
            for observer in beforeSleep { observer.handler() }
        } while !soon.isEmpty
    }

    private func sleepTimeout() -> Int32 {
        if !inbox.withLock({ $0.isEmpty }) { return 0 }
        guard let deadline = timers.nextDeadline() else { return -1 }
        let now = Self.now()
        guard deadline > now else { return 0 }
        let milliseconds = (deadline - now + 999_999) / 1_000_000
        return Int32(min(milliseconds, UInt64(Int32.max)))
    }

    private func handleReady(_ event: epoll_event) {
        let fd = event.data.fd
        if fd == wakeFD {
            var value: UInt64 = 0
            _ = read(wakeFD, &value, 8)
            return
        }
        let ready = Events(rawValue: event.events)
        for id in registrationsByFD[fd] ?? [] {
            guard let registration = registrations[id] else { continue }  // removed by an earlier handler
            let relevant = ready.intersection(registration.events.union([.error, .hangup]))
            if !relevant.isEmpty { registration.handler(relevant) }
        }
    }
}
