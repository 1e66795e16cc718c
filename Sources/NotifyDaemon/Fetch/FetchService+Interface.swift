import DBus
import NotifyCore

extension FetchService {
    /// `org.notifyd.Notifyd1.Fetch`, declared once; `service` is nil when
    /// only the declaration is wanted.
    static func interface(_ service: FetchService?) -> DBusInterface {
        let handle = MethodBinder(service)
        let app = DBusArgument("app_id", .string)
        let fetchID = DBusArgument("fetch_id", .uint64)
        let schedule = DBusArgument("schedule", .dictionary(key: .string, value: .variant))
        return DBusInterface(
            NotifydNames.fetchInterface,
            documentation: """
                Background fetch, as iOS's: an app asks to be woken now and then (SetFetchInterval); notifyd \
                plans each fetch from the interval, the results and when the app is usually opened, and \
                says why (the reason). A fetch reaches the app as PerformFetch, as ActivateAction \
                ("background-fetch") for DBusActivatable apps, or by launching the desktop file's \
                background-fetch action with NOTIFYD_FETCH_ID and NOTIFYD_FETCH_DEADLINE; the app has 30 s \
                to call CompleteFetch, else the fetch ends expired. One fetch per app at a time.
                """,
            methods: [
                DBusMethod(
                    "SetFetchInterval", inputs: [app, .init("seconds", .uint32)],
                    documentation: """
                        The minimum time between two fetches: 0 never (the default), 1 as often as allowed, \
                        else raised to the floor (15 minutes; notifyd --fetch-minimum); above a week OutOfRange.
                        """,
                    handler: handle { $0.setFetchInterval }),
                DBusMethod(
                    "GetFetchSchedule", inputs: [app], outputs: [schedule],
                    documentation: """
                        interval (u, after the floor; 0 never), requested-interval (u, as set), enabled (b), \
                        next (x, Unix µs, 0 when none is planned), reason (s), last-run (x, 0 when never), \
                        last-result (s), runs (u), running (t, the running fetch, 0 when none), waiting-for \
                        (s, what holds a due fetch: a network connection, a network that is not metered, \
                        power-saver mode to end; empty when nothing does).
                        """,
                    handler: handle { $0.getFetchSchedule }),
                DBusMethod(
                    "ListFetchSchedules", outputs: [.init("schedules", .array(scheduleRow))],
                    documentation: "Every app with an interval, a switch or a history, with the same dictionary.",
                    handler: handle { $0.listFetchSchedules }),
                DBusMethod(
                    "GetFetchHistory", inputs: [app], outputs: [.init("fetches", .array(historyRow))],
                    documentation: """
                        The app's ended fetches, newest first (the newest 100 are kept): fetch_id, trigger \
                        (scheduled or manual), start and end (Unix µs), result.
                        """,
                    handler: handle { $0.getFetchHistory }),
                DBusMethod(
                    "SetFetchEnabled", inputs: [app, .init("enabled", .boolean)],
                    documentation: """
                        The user's switch (Background App Refresh): while false no scheduled fetch runs. Kept \
                        across SetFetchInterval. Not for sandboxed callers (NotPermitted).
                        """,
                    handler: handle { $0.setFetchEnabled }),
                DBusMethod(
                    "FetchNow", inputs: [app], outputs: [fetchID],
                    documentation: """
                        Starts a fetch at once, whatever the interval and the switch; LimitExceeded while a \
                        fetch of the app runs.
                        """,
                    handler: handle { $0.fetchNow }),
                DBusMethod(
                    "CompleteFetch", inputs: [fetchID, .init("result", .string)],
                    documentation: """
                        The completion handler: new-data, no-data or failed (else InvalidArgs); UnknownFetch \
                        when the fetch is not running.
                        """,
                    handler: handle { $0.completeFetch }),
            ],
            signals: [
                DBusSignal(
                    "PerformFetch", arguments: [app, fetchID, .init("deadline", .int64)],
                    documentation: "A fetch started; complete it by deadline (Unix µs)."),
                DBusSignal(
                    "FetchCompleted", arguments: [app, fetchID, .init("result", .string)],
                    documentation: "Once per fetch: the app's result, or expired."),
            ])
    }
}
