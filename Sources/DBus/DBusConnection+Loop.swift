import CDBus
import Logging

/// Connects libdbus's watches, timeouts and dispatch status to an
/// ``EventLoop``. Created by ``DBusConnection/attach(to:)``; libdbus holds
/// one retained reference for each of the three callback sets and releases
/// it through the free function when they are replaced or the connection is
/// finalised.
///
/// Lifetimes: the binding refers to the connection weakly (the connection
/// owns the binding, and releases libdbus's references in its `deinit`),
/// and holds it strongly only while it dispatches, so a handler that drops
/// the last other reference cannot free it under libdbus. The watch and
/// timeout pointers belong to libdbus: a loop registration for one exists
/// only between libdbus's add and remove callbacks, after which libdbus may
/// free it.
final class LoopBinding {
    let loop: EventLoop
    weak var connection: DBusConnection?
    var watches: [OpaquePointer: EventLoop.DescriptorID] = [:]
    /// Timeouts libdbus has added and not yet removed: the only ones that
    /// may be handed back to it.
    var timeouts: Set<OpaquePointer> = []
    /// The loop timer of each enabled timeout.
    var timers: [OpaquePointer: EventLoop.TimerID] = [:]
    var dispatchScheduled = false

    init(loop: EventLoop, connection: DBusConnection) {
        self.loop = loop
        self.connection = connection
    }

    // MARK: Watches

    func add(watch: OpaquePointer) -> Bool {
        let fd = dbus_watch_get_unix_fd(watch)
        guard fd >= 0 else { return false }
        // A refusal (ENOMEM, ENOSPC past max_user_watches) is libdbus's "no memory".
        guard
            let id = try? loop.addDescriptor(fd, events: events(of: watch), { [weak self] ready in
                self?.handle(watch: watch, ready: ready)
            })
        else { return false }
        watches[watch] = id
        return true
    }

    func remove(watch: OpaquePointer) {
        if let id = watches.removeValue(forKey: watch) { loop.removeDescriptor(id) }
    }

    func toggled(watch: OpaquePointer) {
        guard let id = watches[watch] else { return }
        do {
            try loop.updateDescriptor(id, events: events(of: watch))
        } catch {
            connection?.logger.error("cannot follow a D-Bus connection's descriptor: \(error.message)")
        }
    }

    private func events(of watch: OpaquePointer) -> EventLoop.Events {
        guard dbus_watch_get_enabled(watch) != 0 else { return [] }
        let flags = dbus_watch_get_flags(watch)
        var events: EventLoop.Events = []
        if flags & CDBusConstant.watchReadable != 0 { events.insert(.readable) }
        if flags & CDBusConstant.watchWritable != 0 { events.insert(.writable) }
        return events
    }

    private func handle(watch: OpaquePointer, ready: EventLoop.Events) {
        var flags: UInt32 = 0
        if ready.contains(.readable) { flags |= CDBusConstant.watchReadable }
        if ready.contains(.writable) { flags |= CDBusConstant.watchWritable }
        if ready.contains(.error) { flags |= CDBusConstant.watchError }
        if ready.contains(.hangup) { flags |= CDBusConstant.watchHangup }
        _ = dbus_watch_handle(watch, flags)
        scheduleDispatch()
    }

    // MARK: Timeouts

    func add(timeout: OpaquePointer) -> Bool {
        timeouts.insert(timeout)
        arm(timeout)
        return true
    }

    /// libdbus no longer has the timeout, and may free it once this returns.
    func remove(timeout: OpaquePointer) {
        timeouts.remove(timeout)
        disarm(timeout)
    }

    func toggled(timeout: OpaquePointer) {
        disarm(timeout)
        arm(timeout)
    }

    private func disarm(_ timeout: OpaquePointer) {
        if let id = timers.removeValue(forKey: timeout) { loop.cancelTimer(id) }
    }

    private func arm(_ timeout: OpaquePointer) {
        guard timeouts.contains(timeout), dbus_timeout_get_enabled(timeout) != 0 else { return }
        let interval = UInt64(max(0, dbus_timeout_get_interval(timeout))) * 1_000_000
        timers[timeout] = loop.scheduleTimer(afterNanoseconds: interval) { [weak self] in
            self?.fire(timeout)
        }
    }

    /// Runs when a timeout's interval has passed. The timeout is still
    /// libdbus's: removing it cancels this timer.
    private func fire(_ timeout: OpaquePointer) {
        timers[timeout] = nil
        _ = dbus_timeout_handle(timeout)
        // libdbus timeouts repeat until removed or disabled. The handler
        // may have removed this one (a pending call's does, and libdbus
        // frees it with the call), so it is armed again only while libdbus
        // still has it, and not when the handler re-armed it already.
        if timeouts.contains(timeout), timers[timeout] == nil { arm(timeout) }
        scheduleDispatch()
    }

    // MARK: Dispatch

    /// Dispatches queued messages from the loop, never from inside a
    /// libdbus callback (libdbus forbids dispatching re-entrantly).
    ///
    /// - Parameter known: the caller already knows messages are queued (the
    ///   status callback, where libdbus must not be asked again).
    func scheduleDispatch(known: Bool = false) {
        guard !dispatchScheduled, let connection else { return }
        guard known || dbus_connection_get_dispatch_status(connection.raw) == DBUS_DISPATCH_DATA_REMAINS else {
            return
        }
        dispatchScheduled = true
        // Weak: the connection may be released before the loop gets here.
        loop.runSoon { [weak self] in
            guard let self else { return }
            self.dispatchScheduled = false
            // Strong while dispatching: a handler may drop the last other
            // reference; the connection then ends after the dispatch, not
            // in the middle of it.
            guard let connection = self.connection else { return }
            while dbus_connection_dispatch(connection.raw) == DBUS_DISPATCH_DATA_REMAINS {}
        }
    }
}

extension DBusConnection {
    /// Attaches the connection to `loop`: from now on the loop reads,
    /// writes, runs timeouts and dispatches messages for it.
    public func attach(to loop: EventLoop) throws(DBusError) {
        guard loopBinding == nil else { return }
        let binding = LoopBinding(loop: loop, connection: self)
        loopBinding = binding
        installFilter()
        let watchData = Unmanaged.passRetained(binding).toOpaque()
        try checkMemory(dbus_connection_set_watch_functions(
            raw, addWatch, removeWatch, toggleWatch, watchData, releaseBinding))
        let timeoutData = Unmanaged.passRetained(binding).toOpaque()
        try checkMemory(dbus_connection_set_timeout_functions(
            raw, addTimeout, removeTimeout, toggleTimeout, timeoutData, releaseBinding))
        dbus_connection_set_dispatch_status_function(
            raw, dispatchStatusChanged, Unmanaged.passRetained(binding).toOpaque(), releaseBinding)
        binding.scheduleDispatch()
    }

    /// Detaches from the loop (done by `deinit`).
    func detachFromLoop() {
        guard loopBinding != nil else { return }
        dbus_connection_set_watch_functions(raw, nil, nil, nil, nil, nil)
        dbus_connection_set_timeout_functions(raw, nil, nil, nil, nil, nil)
        dbus_connection_set_dispatch_status_function(raw, nil, nil, nil)
        loopBinding = nil
    }
}

private func binding(_ data: UnsafeMutableRawPointer?) -> LoopBinding {
    Unmanaged<LoopBinding>.fromOpaque(data!).takeUnretainedValue()
}

private let releaseBinding: DBusFreeFunction = { data in
    guard let data else { return }
    Unmanaged<LoopBinding>.fromOpaque(data).release()
}

private let addWatch: DBusAddWatchFunction = { watch, data in
    guard let watch else { return 0 }
    return binding(data).add(watch: watch) ? 1 : 0
}

private let removeWatch: DBusRemoveWatchFunction = { watch, data in
    guard let watch else { return }
    binding(data).remove(watch: watch)
}

private let toggleWatch: DBusWatchToggledFunction = { watch, data in
    guard let watch else { return }
    binding(data).toggled(watch: watch)
}

private let addTimeout: DBusAddTimeoutFunction = { timeout, data in
    guard let timeout else { return 0 }
    return binding(data).add(timeout: timeout) ? 1 : 0
}

private let removeTimeout: DBusRemoveTimeoutFunction = { timeout, data in
    guard let timeout else { return }
    binding(data).remove(timeout: timeout)
}

private let toggleTimeout: DBusTimeoutToggledFunction = { timeout, data in
    guard let timeout else { return }
    binding(data).toggled(timeout: timeout)
}

private let dispatchStatusChanged: DBusDispatchStatusFunction = { _, status, data in
    guard status == DBUS_DISPATCH_DATA_REMAINS else { return }
    binding(data).scheduleDispatch(known: true)
}
