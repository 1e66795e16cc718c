import DBus
import NotifyCore

extension TransferService {
    /// `org.notifyd.Notifyd1.Transfers`, declared once; `service` is nil
    /// when only the declaration is wanted.
    static func interface(_ service: TransferService?) -> DBusInterface {
        let handle = MethodBinder(service)
        let app = DBusArgument("app_id", .string)
        let session = DBusArgument("session_id", .string)
        let transferID = DBusArgument("transfer_id", .uint64)
        let options = DBusArgument("options", .dictionary(key: .string, value: .variant))
        return DBusInterface(
            NotifydNames.transfersInterface,
            documentation: """
                Background transfers, as iOS's background URLSession: notifyd downloads or uploads by \
                itself (libcurl), whether the app runs or not, across lost networks and restarts, and \
                reports through the session as a worker would (progress events while it runs, then a \
                finished or failed event: handler, popup, sound, badge). At most 4 run at once, the rest \
                queue in the order given; nothing starts without a network, nor on a metered one unless \
                allow-metered. Retried by itself after a lost connection, no data for 60 s, HTTP 408, 429 \
                and 5xx (Retry-After honoured), waits growing from 1 s to 10 minutes; a download resumes \
                from its partial file (PATH.ID.part beside PATH) with Range and If-Range, or starts over \
                when the server cannot resume or the file changed. Beyond SPEC: a download PATH ending in \
                '/' is a directory in which notifyd names the file from Content-Disposition or the URL, \
                never over an existing file (NAME (1).EXT, as browsers do). A sandboxed caller names \
                files under ~/.var/app/APP_ID/ only (NotPermitted). What only the disk can say (a symbolic \
                link in the way, an existing file without overwrite, a full disk) ends the transfer \
                failed, with the reason in words.
                """,
            methods: [
                DBusMethod(
                    "Download", inputs: [app, session, .init("url", .string), .init("path", .string), options],
                    outputs: [transferID],
                    documentation: """
                        Queues a download of url (http or https, else InvalidArgs) to the absolute path. \
                        Options: title (s), headers (a{ss}), sha256 (s, 64 hex digits), allow-metered (b), \
                        discretionary (b), not-before (x, Unix µs), overwrite (b), and notify, sound, badge, \
                        timeout as in the event dictionary. At most 1,000 transfers not ended per app and \
                        10,000 in all (LimitExceeded).
                        """,
                    handler: handle { $0.download }),
                DBusMethod(
                    "Upload", inputs: [app, session, .init("path", .string), .init("url", .string), options],
                    outputs: [transferID],
                    documentation: "Queues an upload of the file at path to url: PUT, or POST with method 'POST'.",
                    handler: handle { $0.upload }),
                DBusMethod(
                    "CancelTransfer", inputs: [transferID],
                    documentation: """
                        Ends it cancelled: no popup, no badge, no partial file left (the session gets a silent \
                        failed event with error 'cancelled'); UnknownTransfer when it has ended or never existed.
                        """,
                    handler: handle { $0.cancel }),
                DBusMethod(
                    "SuspendTransfer", inputs: [transferID],
                    documentation: "Holds it; what was transferred is kept. A no-op when suspended.",
                    handler: handle { $0.suspend }),
                DBusMethod(
                    "ResumeTransfer", inputs: [transferID],
                    documentation: "Lets a suspended transfer go on. A no-op when it is not suspended.",
                    handler: handle { $0.resume }),
                DBusMethod(
                    "GetTransfer", inputs: [transferID], outputs: [.init("details", .dictionary(key: .string, value: .variant))],
                    documentation: """
                        direction, url (without user name or password), path (the file written, once named), \
                        state (queued, waiting, running, suspended, completed, failed, cancelled), reason, \
                        bytes-done (t), bytes-total (t, 0 when unknown), attempts (u), title (s), created (x), \
                        and ended (x), retry-at (x), not-before (x) when they apply.
                        """,
                    handler: handle { $0.get }),
                DBusMethod(
                    "ListTransfers", outputs: [.init("transfers", .array(row))],
                    documentation: "transfer_id, app_id, session_id, details: every transfer not ended, then the last 100 ended.",
                    handler: handle { $0.list }),
            ],
            signals: [
                DBusSignal(
                    "TransferChanged",
                    arguments: [transferID, app, session, .init("state", .string),
                                .init("details", .dictionary(key: .string, value: .variant))],
                    documentation: "On every change of state or reason, and while running at most twice a second."),
            ])
    }
}
