import DBus
import NotifyCore

extension SessionService {
    static var eventType: DBusType { .dictionary(key: .string, value: .variant) }

    /// `org.notifyd.Notifyd1.Sessions`, declared once; `service` is nil
    /// when only the declaration is wanted.
    static func interface(_ service: SessionService?) -> DBusInterface {
        let handle = MethodBinder(service)
        return DBusInterface(
            NotifydNames.sessionsInterface,
            documentation: """
                Background sessions. A worker reports events for a session (this method, or the signal \
                org.notifyd.Notifyd1.Worker.EventsForBackgroundSession); for kinds finished, failed and \
                fetch notifyd stores one pending completion handler per event and invokes each exactly \
                once: CompleteSession (completed), CancelSession (cancelled) or its deadline (expired; \
                30 s, or the event's timeout). Pending handlers survive restarts.
                """,
            methods: [
                DBusMethod(
                    "HandleEventsForBackgroundSession",
                    inputs: [.init("session_id", .string), .init("app_id", .string), .init("event", eventType)],
                    outputs: [.init("handler_id", .uint64)],
                    documentation: """
                        Reports an event; returns the new handler's ID (0 when the event stores none, e.g. \
                        progress). \(WorkerEventKey.documentation) A known key of the wrong type or outside \
                        its bounds is InvalidArgs; more than 10000 pending handlers for the app or 100000 in \
                        all, or a badge delta for an app without a badge while 10000 apps have one, is \
                        LimitExceeded; nothing is stored then.
                        """,
                    handler: handle { $0.handleEvents }),
                DBusMethod(
                    "CompleteSession", inputs: [.init("session_id", .string)], outputs: [.init("invoked", .uint32)],
                    documentation: "The app has handled the session's events: invokes its pending handlers (completed).",
                    handler: handle { $0.completeSession }),
                DBusMethod(
                    "CancelSession", inputs: [.init("session_id", .string)], outputs: [.init("invoked", .uint32)],
                    documentation: "Invokes the session's pending handlers with the result cancelled.",
                    handler: handle { $0.cancelSession }),
                DBusMethod(
                    "WaitForSession", inputs: [.init("session_id", .string)], outputs: [.init("result", .string)],
                    documentation: """
                        Returns once the session has no pending handler, with the result of the last one \
                        invoked (completed, cancelled or expired; none if it never had one). At once if none \
                        is pending; UnknownSession if notifyd never saw the session.
                        """,
                    handler: handle { $0.waitForSession }),
                DBusMethod(
                    "ListSessions",
                    outputs: [.init("sessions", .array(sessionRowType))],
                    documentation: """
                        Every session notifyd keeps: session_id, app_id, pending handlers, and details: \
                        events u, last-event x (Unix µs), in-progress b, and when known progress d, \
                        bytes-written t, bytes-expected t, last-result s. Finished sessions (nothing pending, \
                        no progress) are kept up to the 1000 most recent.
                        """,
                    handler: handle { $0.listSessions }),
            ],
            signals: [
                DBusSignal(
                    "HandleEventsForBackgroundSession",
                    arguments: [
                        .init("session_id", .string), .init("app_id", .string), .init("handler_id", .uint64),
                        .init("event", eventType),
                    ],
                    documentation: "An event was recorded: a running app can process it (handler_id 0: none stored)."),
                DBusSignal(
                    "SessionCompleted",
                    arguments: [
                        .init("session_id", .string), .init("app_id", .string), .init("handler_id", .uint64),
                        .init("result", .string),
                    ],
                    documentation: "A handler was invoked: result is completed, cancelled or expired."),
                DBusSignal(
                    "NotificationPosted",
                    arguments: [
                        .init("app_id", .string), .init("session_id", .string), .init("notification_id", .uint32),
                        .init("details", eventType),
                    ],
                    documentation: """
                        A notification was posted or updated: details has summary s, body s (plain text; \
                        escaped only on its way to a server that reads body markup), sound-backend s (server: \
                        the server plays it, as measured per server, not only by its sound capability; \
                        canberra: notifyd played it; none: silent; failed: notifyd could not play it, logged \
                        with its cause), merged u (events merged into it), kind s, app-name s.
                        """),
            ])
    }

    /// `org.notifyd.Notifyd1.Worker`: what workers emit, from any object
    /// path. It is not on notifyd's object; it is documented in
    /// `dbus/org.notifyd.Notifyd1.Worker.xml`.
    static var workerInterface: DBusInterface {
        DBusInterface(
            NotifydNames.workerInterface,
            documentation: """
                Emitted by download and fetch workers, from any object path (fire and forget, e.g. with \
                gdbus emit; the README shows the command line). notifyd handles it exactly as the method \
                org.notifyd.Notifyd1.Sessions.HandleEventsForBackgroundSession; a refused event is logged \
                with its sender and the reason.
                """,
            signals: [
                DBusSignal(
                    "EventsForBackgroundSession",
                    arguments: [.init("session_id", .string), .init("app_id", .string), .init("event", eventType)],
                    documentation: WorkerEventKey.documentation)
            ])
    }
}
