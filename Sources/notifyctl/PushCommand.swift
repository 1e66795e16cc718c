import ArgumentParser
import DBus
import NotifyCore

/// `notifyctl push`: notifyd's UnifiedPush distributor.
struct PushCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Show and manage notifyd's UnifiedPush distributor (remote notifications).",
        discussion: """
            Apps that speak UnifiedPush (NeoChat, Tokodon, Tuba, ...) register with a distributor on the \
            bus; notifyd is one, as org.unifiedpush.Distributor.notifyd. It keeps one connection to the \
            push server set with `notifyctl push server` (an XMPP account); registrations made before one \
            is set are kept and completed then.

            Examples:
              notifyctl push server xmpp alice@example.org
              notifyctl push status
              notifyctl push list
              notifyctl push remove org.kde.neochat
            """,
        subcommands: [PushStatus.self, PushList.self, PushRemove.self, PushServer.self])
}

/// `notifyctl push status`: `GetStatus`.
struct PushStatus: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the push server's state, the registrations and the messages held.",
        discussion: """
            Calls GetStatus of org.notifyd.Notifyd1.Push. With --json, an object with the keys kind, \
            address, state, reason, registrations and pending_messages.

            Examples:
              notifyctl push status
              notifyctl push status --json | jq -r .state
            """)

    @OptionGroup var output: OutputOptions

    func run() throws {
        let status = try PushStatusReport(client: DaemonClient.connect())
        output.emit(text: status.lines, json: status.json)
    }
}

/// What `GetStatus` answered.
struct PushStatusReport {
    var details: [String: DBusValue]

    init(client: DaemonClient) throws(NotifyctlError) {
        let reply = try client.call(NotifydNames.pushInterface, "GetStatus")
        guard let details = reply.first?.vardictEntries else {
            throw NotifyctlError(.daemon, "notifyd answered GetStatus with \(reply)")
        }
        self.details = details
    }

    func text(_ key: String) -> String {
        if case .string(let value)? = details[key] { return value }
        return ""
    }

    func count(_ key: String) -> UInt32 {
        if case .uint32(let value)? = details[key] { return value }
        return 0
    }

    /// One line for `notifyctl status`: the state and its reason.
    var summary: String {
        let address = text("address")
        return text("state") + (address.isEmpty ? "" : " to \(Output.printable(address))") + " (\(text("reason")))"
    }

    var lines: [String] {
        [
            "Push server:       \(text("kind"))\(text("address").isEmpty ? "" : " \(Output.printable(text("address")))")",
            "State:             \(text("state"))",
            "Reason:            \(Output.printable(text("reason")))",
            "Registrations:     \(count("registrations"))",
            "Pending messages:  \(count("pending-messages"))",
        ]
    }

    var json: JSON {
        .object([
            ("kind", .string(text("kind"))), ("address", .string(text("address"))), ("state", .string(text("state"))),
            ("reason", .string(text("reason"))), ("registrations", .uint(UInt64(count("registrations")))),
            ("pending_messages", .uint(UInt64(count("pending-messages")))),
        ])
    }
}

/// `notifyctl push list`: `ListRegistrations`.
struct PushList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the apps registered for push messages.",
        discussion: """
            Calls ListRegistrations. Prints a table: app, description, messages delivered, messages held \
            for the app, and the endpoint (empty until a push server gave one); nothing when no app is \
            registered. Tokens are never shown. With --json, an array of {"app","description","endpoint",\
            "messages","pending","last_message"} objects (last_message in Unix µs, 0 before the first).

            Examples:
              notifyctl push list
              notifyctl push list --json | jq -r '.[].app'
            """)

    @OptionGroup var output: OutputOptions

    func run() throws {
        let reply = try DaemonClient.connect().call(NotifydNames.pushInterface, "ListRegistrations")
        guard case .array(_, let values)? = reply.first else {
            throw NotifyctlError(.daemon, "notifyd answered ListRegistrations with \(reply)")
        }
        let rows = values.compactMap(PushRegistrationRow.init)
        var lines = [["APP", "DESCRIPTION", "MESSAGES", "PENDING", "ENDPOINT"]]
        lines += rows.map {
            [Output.printable($0.app), Output.printable($0.description), String($0.messages), String($0.pending),
             $0.endpoint.isEmpty ? "-" : Output.printable($0.endpoint)]
        }
        output.emit(text: rows.isEmpty ? [] : TextTable.lines(lines), json: .array(rows.map(\.json)))
    }
}

/// One row of `ListRegistrations` (`(ssa{sv})`).
struct PushRegistrationRow {
    let app: String
    let description: String
    let endpoint: String
    let messages: UInt32
    let pending: UInt32
    let lastMessage: Int64

    init?(_ value: DBusValue) {
        guard case .structure(let fields) = value, fields.count == 3, case .string(let app) = fields[0],
            case .string(let description) = fields[1], let unwrapped = fields[2].vardictEntries
        else { return nil }
        self.app = app
        self.description = description
        if case .string(let endpoint)? = unwrapped["endpoint"] { self.endpoint = endpoint } else { endpoint = "" }
        if case .uint32(let messages)? = unwrapped["messages"] { self.messages = messages } else { messages = 0 }
        if case .uint32(let pending)? = unwrapped["pending"] { self.pending = pending } else { pending = 0 }
        if case .int64(let last)? = unwrapped["last-message"] { lastMessage = last } else { lastMessage = 0 }
    }

    var json: JSON {
        .object([
            ("app", .string(app)), ("description", .string(description)), ("endpoint", .string(endpoint)),
            ("messages", .uint(UInt64(messages))), ("pending", .uint(UInt64(pending))), ("last_message", .int(lastMessage)),
        ])
    }
}

/// `notifyctl push remove APP`: `RemoveRegistrations`.
struct PushRemove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove every push registration of APP; its connector is told (Unregistered).",
        discussion: """
            Calls RemoveRegistrations and prints how many were removed. The app registers again the \
            next time it asks for push messages.

            Examples:
              notifyctl push remove org.kde.neochat
            """)

    @Argument(help: ArgumentHelp("The app (a desktop entry ID).", valueName: "app"))
    var app: String

    func run() throws {
        let removed = try DaemonClient.connect().call(
            NotifydNames.pushInterface, "RemoveRegistrations", [.string(app)], returning: UInt32.self)
        print("Removed \(removed) registration\(removed == 1 ? "" : "s") of \(Output.printable(app)).")
    }
}
