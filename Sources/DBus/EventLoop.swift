import CLinux
import Glibc
import Synchronization

/// A single-threaded event loop over epoll: file descriptors, timers,
/// work posted from other threads, and observers that run before it sleeps.
///
/// Everything but ``execute(_:)`` and ``stop()`` must be called on the
/// loop's thread (the thread that created it, then the one that runs it).
/// The loop sleeps in `epoll_wait` with no timeout; a timerfd on
/// `CLOCK_BOOTTIME` wakes it for the earliest timer, so timers count time
/// the machine was asleep (one due during a suspend fires at resume), and
/// an idle loop with no timer causes no wake-ups at all.
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
    /// `CLOCK_BOOTTIME` timerfd, armed at the earliest timer's deadline.
    private let timerFD: Int32
    private var armedDeadline: UInt64?
    /// Why ``run()`` returned on its own, if it did.
    public private(set) var failure: DBusError?
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
        var opened: [Int32] = []
        do throws(DBusError) {
            epollFD = try SystemCall.run("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
            opened.append(epollFD)
            wakeFD = try SystemCall.run("eventfd") { eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK)) }
            opened.append(wakeFD)
            timerFD = try SystemCall.run("timerfd_create") {
                timerfd_create(CLOCK_BOOTTIME, Int32(TFD_CLOEXEC) | Int32(TFD_NONBLOCK))
            }
            opened.append(timerFD)
            for fd in [wakeFD, timerFD] {
                var event = epoll_event()
                event.events = EPOLLIN.rawValue
                event.data.fd = fd
                try SystemCall.run("epoll_ctl") { [epollFD] in epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) }
            }
        } catch {
            for fd in opened { close(fd) }
            throw error
        }
        owner = Atomic(UInt(pthread_self()))
    }

    deinit {
        close(timerFD)
        close(wakeFD)
        close(epollFD)
    }

    static func systemError(_ what: String) -> DBusError {
        SystemCall.Failure(call: what, errno: errno).error
    }

    /// Whether the caller is on the loop's thread.
    public var inLoopThread: Bool { owner.load(ordering: .relaxed) == UInt(pthread_self()) }

    func assertInLoop(_ function: StaticString = #function) {
        assert(inLoopThread, "EventLoop.\(function) called off the loop thread")
    }

    /// Elapsed time in nanoseconds, time asleep included (`CLOCK_BOOTTIME`):
    /// the clock of every timer.
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_BOOTTIME, &ts)
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
        // EAGAIN: the counter is already far from zero, so the loop wakes anyway.
        _ = try? SystemCall.checked("write to the wake-up eventfd") { write(wakeFD, &one, 8) }
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

    /// Calls `handler` once, at an elapsed time (see ``now()``).
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
    /// Throws when epoll refuses the descriptor (nothing is registered).
    public func addDescriptor(
        _ fd: Int32, events: Events, _ handler: @escaping (Events) -> Void
    ) throws(DBusError) -> DescriptorID {
        assertInLoop()
        let id = DescriptorID(value: nextDescriptorID)
        let isNew = registrationsByFD[fd] == nil
        registrations[id] = Registration(fd: fd, events: events, handler: handler)
        registrationsByFD[fd, default: []].append(id)
        do throws(DBusError) {
            try updateEpoll(fd, adding: isNew)
        } catch {
            registrations[id] = nil
            registrationsByFD[fd]?.removeAll { $0 == id }
            if registrationsByFD[fd]?.isEmpty ?? false { registrationsByFD[fd] = nil }
            throw error
        }
        nextDescriptorID += 1
        return id
    }

    /// Changes the events a registration waits for (empty: none).
    public func updateDescriptor(_ id: DescriptorID, events: Events) throws(DBusError) {
        assertInLoop()
        guard let fd = registrations[id]?.fd else { return }
        registrations[id]?.events = events
        try updateEpoll(fd, adding: false)
    }

    /// Removes a registration. Never fails: a descriptor closed already
    /// has left epoll by itself.
    public func removeDescriptor(_ id: DescriptorID) {
        assertInLoop()
        guard let registration = registrations.removeValue(forKey: id) else { return }
        let fd = registration.fd
        registrationsByFD[fd]?.removeAll { $0 == id }
        if registrationsByFD[fd]?.isEmpty ?? true {
            registrationsByFD[fd] = nil
            _ = try? SystemCall.checked("epoll_ctl(EPOLL_CTL_DEL)") { epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil) }
        } else {
            _ = try? updateEpoll(fd, adding: false)
        }
    }

    private func updateEpoll(_ fd: Int32, adding: Bool) throws(DBusError) {
        var mask = Events()
        for id in registrationsByFD[fd] ?? [] { mask.formUnion(registrations[id]?.events ?? []) }
        var event = epoll_event()
        event.events = mask.intersection([.readable, .writable]).rawValue
        event.data.fd = fd
        try SystemCall.run("epoll_ctl(\(adding ? "EPOLL_CTL_ADD" : "EPOLL_CTL_MOD"), \(fd))") {
            epoll_ctl(epollFD, adding ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event)
        }
    }

    // MARK: Running

    /// Runs the loop on the calling thread until ``stop()``, or until the
    /// loop itself fails (epoll or its timer refused): then ``failure``
    /// says why.
    public func run() {
        owner.store(UInt(pthread_self()), ordering: .relaxed)
        stopRequested.store(false, ordering: .relaxed)
        failure = nil
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        do throws(DBusError) {
            while !stopRequested.load(ordering: .relaxed) {
                runPendingWork()
                if stopRequested.load(ordering: .relaxed) { break }
                let timeout = try sleepTimeout()
                let ready = try SystemCall.run("epoll_wait") {
                    epoll_wait(epollFD, &events, Int32(events.count), timeout)
                }
                for index in 0..<Int(ready) { try handleReady(events[index]) }
            }
        } catch {
            failure = error
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

    /// 0 when work is waiting or a timer is due; else -1 (sleep until an
    /// event), with the timerfd armed at the earliest timer.
    private func sleepTimeout() throws(DBusError) -> Int32 {
        if !inbox.withLock({ $0.isEmpty }) { return 0 }
        let deadline = timers.nextDeadline()
        if let deadline, deadline <= Self.now() { return 0 }
        try armTimer(at: deadline)
        return -1
    }

    /// Arms the timerfd for `deadline` (`CLOCK_BOOTTIME`), or disarms it;
    /// only when that changes. Armed with the time left rather than
    /// `TFD_TIMER_ABSTIME`: the same clock, and what libfaketime (which
    /// rewrites absolute timerfd times as if they were wall-clock times)
    /// leaves alone.
    private func armTimer(at deadline: UInt64?) throws(DBusError) {
        guard deadline != armedDeadline else { return }
        var setting = itimerspec()
        if let deadline {
            let now = Self.now()
            let left = deadline > now ? deadline - now : 1  // never 0, which disarms
            setting.it_value.tv_sec = Int(left / 1_000_000_000)
            setting.it_value.tv_nsec = Int(left % 1_000_000_000)
        }
        try SystemCall.run("timerfd_settime") { timerfd_settime(timerFD, 0, &setting, nil) }
        armedDeadline = deadline
    }

    private func handleReady(_ event: epoll_event) throws(DBusError) {
        let fd = event.data.fd
        if fd == wakeFD || fd == timerFD {
            _ = try SystemCall.readCounter(fd, fd == wakeFD ? "read of the wake-up eventfd" : "read of the timerfd")
            if fd == timerFD { armedDeadline = nil }
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
