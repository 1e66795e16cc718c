import DBus
import NotifyCore

extension AppService {
    /// `org.notifyd.Notifyd1.Apps`, declared once; `service` is nil when
    /// only the declaration is wanted.
    static func interface(_ service: AppService?) -> DBusInterface {
        let handle = MethodBinder(service)
        let app = DBusArgument("app_id", .string)
        return DBusInterface(
            NotifydNames.appsInterface,
            documentation: """
                App lifecycle. A state belongs to the connection that reported it last: when that \
                connection leaves the bus, the app becomes not-running. Clicking a notification's default \
                action activates the app and counts as DidBecomeActive. Every activation is recorded \
                with its time (the newest 1000 per app are kept). At most 10000 apps have a state \
                other than not-running or an activation history: a state reported for one more app \
                forgets the history of the app not running whose last activation is the oldest; when \
                all have a state, it is LimitExceeded.
                """,
            methods: [
                DBusMethod(
                    "DidBecomeActive", inputs: [app],
                    documentation: "The app is in front: state active, its badge becomes 0, the activation is recorded.",
                    handler: handle { $0.didBecomeActive }),
                DBusMethod(
                    "WillResignActive", inputs: [app], documentation: "State inactive.",
                    handler: handle { $0.willResignActive }),
                DBusMethod(
                    "DidEnterBackground", inputs: [app], documentation: "State background.",
                    handler: handle { $0.didEnterBackground }),
                DBusMethod(
                    "GetState", inputs: [app], outputs: [.init("state", .string)],
                    documentation: "active, inactive, background or not-running.", handler: handle { $0.getState }),
                DBusMethod(
                    "ListApps", outputs: [.init("apps", .array(.structure([.string, .string, .uint32])))],
                    documentation: """
                        app_id, state and badge of every app notifyd knows: with a state, an activation, a badge \
                        or a session.
                        """,
                    handler: handle { $0.listApps }),
            ],
            signals: [
                DBusSignal(
                    "StateChanged", arguments: [app, .init("state", .string)],
                    documentation: "On every change of an app's state.")
            ])
    }
}
