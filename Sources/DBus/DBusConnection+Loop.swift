import CDBus

/// Connects libdbus's watches, timeouts and dispatch status to an
/// ``EventLoop``. Created by ``DBusConnection/attach(to:)``; libdbus holds
/// one retained reference for each of the three callback sets and releases
/// it through the free function when they are replaced or the connection is
/// finalised.
final class LoopBinding {
    let loop: EventLoop
    unowned(unsafe) let connection: DBusConnection
    var watches: [OpaquePointer: EventLoop.DescriptorID] = [:]
    var timeouts: [OpaquePointer: EventLoop.TimerID] = [:]
    var dispatchScheduled = false

    init(loop: EventLoop, connection: DBusConnection) {
        self.loop = loop
        self.connection = connection
    }

    // MARK: Watches

    func add(watch: OpaquePointer) -> Bool {
        let fd = dbus_watch_get_unix_fd(watch)
        guard fd >= 0 else { return false }
        watches[watch] = loop.addDescriptor(fd, events: events(of: watch)) { [weak self] ready in
            self?.handle(watch: watch, ready: ready)
        }
        return true
    }

    func remove(watch: OpaquePointer) {
        if let id = watches.removeValue(forKey: watch) { loop.removeDescriptor(id) }
    }

    func toggled(watch: OpaquePointer) {
        if let id = watches[watch] { loop.updateDescriptor(id, events: events(of: watch)) }
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
        arm(timeout)
        return true
    }

    func remove(timeout: OpaquePointer) {
        if let id = timeouts.removeValue(forKey: timeout) { loop.cancelTimer(id) }
    }

    func toggled(timeout: OpaquePointer) {
        remove(timeout: timeout)
        arm(timeout)
    }

    private func arm(_ timeout: OpaquePointer) {
        guard dbus_timeout_get_enabled(timeout) != 0 else { return }
        let interval = UInt64(max(0, dbus_timeout_get_interval(timeout))) * 1_000_000
        timeouts[timeout] = loop.scheduleTimer(afterNanoseconds: interval) { [weak self] in
            guard let self else { return }
            self.timeouts[timeout] = nil
            _ = dbus_timeout_handle(timeout)
            // libdbus timeouts repeat until removed or disabled.
            if self.timeouts[timeout] == nil { self.arm(timeout) }
            self.scheduleDispatch()
        }
    }

    // MARK: Dispatch

    /// Dispatches queued messages from the loop, never from inside a
    /// libdbus callback (libdbus forbids dispatching re-entrantly).
    ///
    /// - Parameter known: the caller already knows messages are queued (the
    ///   status callback, where libdbus must not be asked again).
    func scheduleDispatch(known: Bool = false) {
        guard !dispatchScheduled else { return }
        guard known || dbus_connection_get_dispatch_status(connection.raw) == DBUS_DISPATCH_DATA_REMAINS else {
            return
        }
        dispatchScheduled = true
        // Weak: the connection may be closed before the loop gets here.
        loop.runSoon { [weak self] in
            guard let self else { return }
            self.dispatchScheduled = false
            while dbus_connection_dispatch(self.connection.raw) == DBUS_DISPATCH_DATA_REMAINS {}
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
