import DBus
import NotifyCore

extension TaskService {
    /// `org.notifyd.Notifyd1.Tasks`, declared once; `service` is nil when
    /// only the declaration is wanted.
    static func interface(_ service: TaskService?) -> DBusInterface {
        let handle = MethodBinder(service)
        let app = DBusArgument("app_id", .string)
        let taskID = DBusArgument("task_id", .uint64)
        return DBusInterface(
            NotifydNames.tasksInterface,
            documentation: """
                Finite-length background tasks, as iOS's beginBackgroundTask: "give me up to three minutes \
                to finish". While any task runs, notifyd holds one systemd-logind sleep lock \
                (Inhibit("sleep", "notifyd", WHY, "block"), WHY naming every task as "app: name"), taking \
                the new lock before closing the old one when the set changes, and closing it when the last \
                task ends: never longer than the longest task. Without logind the tasks work the same, \
                without the lock (Daemon.Inhibiting says which). A task belongs to the connection that \
                began it; tasks do not survive a restart.
                """,
            methods: [
                DBusMethod(
                    "BeginBackgroundTask", inputs: [app, .init("name", .string)],
                    outputs: [taskID, .init("seconds", .uint32)],
                    documentation: """
                        A task of at most seconds (180 unless notifyd --task-seconds says otherwise); name is 1 \
                        to 255 bytes without control characters (else InvalidArgs); at most 16 running tasks \
                        per app (LimitExceeded).
                        """,
                    handler: handle { $0.begin }),
                DBusMethod(
                    "EndBackgroundTask", inputs: [taskID],
                    documentation: "Ends the task (ended); UnknownTask when it is not running.",
                    handler: handle { $0.end }),
                DBusMethod(
                    "BackgroundTimeRemaining", inputs: [app], outputs: [.init("seconds", .double)],
                    documentation: "Seconds until the app's first running task expires; 0 when it has none.",
                    handler: handle { $0.timeRemaining }),
                DBusMethod(
                    "ListBackgroundTasks", outputs: [.init("tasks", .array(row))],
                    documentation: """
                        task_id, app_id, name, deadline (Unix µs), details: began (x), owner (s, the unique \
                        bus name that began it), seconds-left (d), expiring (b, the cue was sent).
                        """,
                    handler: handle { $0.list }),
            ],
            signals: [
                DBusSignal(
                    "BackgroundTaskExpiring", arguments: [taskID, app, .init("seconds_left", .uint32)],
                    documentation: "5 seconds before the deadline: the expiration handler's cue."),
                DBusSignal(
                    "BackgroundTaskEnded", arguments: [taskID, app, .init("result", .string)],
                    documentation: """
                        ended, expired (the deadline passed), or abandoned (its connection left the bus \
                        first; logged with the app and name, as iOS reports a leaked task).
                        """),
            ])
    }
}
