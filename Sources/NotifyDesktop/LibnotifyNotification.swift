import CLibnotify

/// One `NotifyNotification`, of which this object owns one reference.
///
/// GLib thread only: libnotify is not thread-safe, and its proxy delivers
/// action and close callbacks on the thread-default context of the thread
/// that first used it. Callbacks are Swift closures held in retained boxes
/// that libnotify and GObject release through their free functions.
final class LibnotifyNotification {
    let raw: UnsafeMutablePointer<NotifyNotification>
    private var closedHandlerID: gulong = 0

    init(summary: String, body: String, icon: String?) {
        raw = notify_notification_new(summary, body, icon)
    }

    deinit {
        // Nothing may call back once the owner has forgotten this popup.
        if closedHandlerID != 0 { g_signal_handler_disconnect(object, closedHandlerID) }
        g_object_unref(object)
    }

    private var object: gpointer { UnsafeMutableRawPointer(raw) }

    /// New text and icon for an update in place; hints and actions are
    /// cleared so the caller sets all of them again.
    func update(summary: String, body: String, icon: String?) {
        notify_notification_clear_hints(raw)
        notify_notification_clear_actions(raw)  // frees the old action boxes
        notify_notification_update(raw, summary, body, icon)
    }

    func setAppName(_ name: String) { notify_notification_set_app_name(raw, name) }
    func setCategory(_ category: String) { notify_notification_set_category(raw, category) }

    // set_hint sinks the floating GVariant the typed constructors return.
    func setHint(_ key: String, string value: String) { notify_notification_set_hint(raw, key, g_variant_new_string(value)) }
    func setHint(_ key: String, bool value: Bool) {
        notify_notification_set_hint(raw, key, g_variant_new_boolean(value ? gTrue : gFalse))
    }
    func setHint(_ key: String, int32 value: Int32) { notify_notification_set_hint(raw, key, g_variant_new_int32(value)) }

    /// Adds an action; `handler` gets the action ID when the user picks it.
    func addAction(_ action: String, label: String, handler: @escaping (String) -> Void) {
        let box = Unmanaged.passRetained(CallbackBox(handler)).toOpaque()
        // libnotify frees the box with `releaseStringBox` when the action is
        // cleared or the notification finalized.
        notify_notification_add_action(raw, action, label, actionTrampoline, box, releaseStringBox)
    }

    /// Sets what happens when the server closes the popup; `handler` gets
    /// the reason (1 expired, 2 dismissed, 3 closed by a call, 4 undefined).
    func onClosed(_ handler: @escaping (Int32) -> Void) {
        if closedHandlerID != 0 { g_signal_handler_disconnect(object, closedHandlerID) }
        let box = Unmanaged.passRetained(CallbackBox(handler)).toOpaque()
        // GObject frees the box with `releaseReasonBox` on disconnect or finalize.
        closedHandlerID = g_signal_connect_data(
            object, "closed", unsafeBitCast(closedTrampoline, to: GCallback.self), box, releaseReasonBox,
            GConnectFlags(rawValue: 0))
    }

    /// Sends `Notify` (blocking this thread until the server answers).
    func show() throws(DesktopError) {
        try withGError("the notification server refused the notification", failed: { $0 == gFalse }) {
            notify_notification_show(raw, $0)
        }
    }

    /// Sends `CloseNotification`; the server answers with `NotificationClosed`.
    func close() throws(DesktopError) {
        try withGError("cannot close the notification", failed: { $0 == gFalse }) {
            notify_notification_close(raw, $0)
        }
    }

    /// The server's id for the popup (0 before the first show): libnotify's
    /// `id` property, an int.
    var id: UInt32 {
        var value = GValue()
        g_value_init(&value, gTypeInt)
        defer { g_value_unset(&value) }
        g_object_get_property(UnsafeMutablePointer<GObject>(OpaquePointer(raw)), "id", &value)
        return UInt32(bitPattern: g_value_get_int(&value))
    }

    var closedReason: Int32 { notify_notification_get_closed_reason(raw) }
}

/// `G_TYPE_INT`, i.e. `G_TYPE_MAKE_FUNDAMENTAL (6)` (a macro Swift cannot import).
private let gTypeInt = GType(6 << G_TYPE_FUNDAMENTAL_SHIFT)

/// A Swift closure held as C user data.
private final class CallbackBox<Argument> {
    let call: (Argument) -> Void
    init(_ call: @escaping (Argument) -> Void) { self.call = call }
}

private let actionTrampoline: NotifyActionCallback = { _, action, data in
    guard let data else { return }
    let action = action.map { String(cString: $0) } ?? ""
    Unmanaged<CallbackBox<String>>.fromOpaque(data).takeUnretainedValue().call(action)
}

/// Balances the `passRetained` of `addAction`.
private let releaseStringBox: GFreeFunc = { data in
    guard let data else { return }
    Unmanaged<CallbackBox<String>>.fromOpaque(data).release()
}

/// The `closed` signal's handler: `void (*)(NotifyNotification *, gpointer)`.
private let closedTrampoline: @convention(c) (UnsafeMutablePointer<NotifyNotification>?, gpointer?) -> Void = {
    notification, data in
    guard let notification, let data else { return }
    let reason = notify_notification_get_closed_reason(notification)
    Unmanaged<CallbackBox<Int32>>.fromOpaque(data).takeUnretainedValue().call(reason)
}

/// Balances the `passRetained` of `onClosed`.
private let releaseReasonBox: GClosureNotify = { data, _ in
    guard let data else { return }
    Unmanaged<CallbackBox<Int32>>.fromOpaque(data).release()
}
