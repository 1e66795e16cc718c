import ArgumentParser
import DBus
import NotifyCore

/// `notifyctl transfer`: one background transfer.
struct TransferCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transfer",
        abstract: "Show, cancel, suspend or resume one background transfer.",
        discussion: """
            ID is the transfer's, as download and upload print it and transfers lists it.

            Examples:
              notifyctl transfer show 7
              notifyctl transfer suspend 7
              notifyctl transfer resume 7
              notifyctl transfer cancel 7
            """,
        subcommands: [TransferShow.self, TransferCancel.self, TransferSuspend.self, TransferResume.self])

    static var interface: String { NotifydNames.transfersInterface }
}

/// The `ID` argument of the `transfer` subcommands.
struct TransferIDArgument: ParsableArguments {
    @Argument(help: ArgumentHelp("The transfer's ID.", valueName: "id"), completion: Transfers.liveIDs)
    var id: UInt64
}

/// `notifyctl transfer show ID`.
struct TransferShow: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show everything notifyd says of a transfer.",
        discussion: """
            Calls GetTransfer (and ListTransfers, for its app and session). One "key: value" line \
            each: direction, title, url (without any password), path (the final name once \
            known), state and its reason, progress, attempts, and the times (local time, ISO \
            8601). With --json, one object (times in UTC, *_us in Unix microseconds).

            Examples:
              notifyctl transfer show 7
              notifyctl transfer show 7 --json | jq -r .path
            """)

    @OptionGroup var transfer: TransferIDArgument

    @OptionGroup var output: OutputOptions

    func run() throws {
        let client = try DaemonClient.connect()
        let id = transfer.id
        let reply = try client.call(TransferCommand.interface, "GetTransfer", [.uint64(id)])
        guard let details = reply.first?.vardictEntries else {
            throw NotifyctlError(.daemon, "notifyd's reply to GetTransfer is not an a{sv}: \(reply)")
        }
        var info = TransferInfo(id: id, details: details)
        // The app and the session, when the transfer is in the list.
        if let listed = (try? Transfers.list(client))?.first(where: { $0.id == id }) {
            info.app = listed.app
            info.session = listed.session
        }
        output.emit(text: info.lines { Timestamp.local(unixMicroseconds: $0) }, json: info.json)
    }
}

/// `notifyctl transfer cancel ID`.
struct TransferCancel: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel a transfer: no popup, no badge, no partial file left (CancelTransfer).",
        discussion: """
            Prints nothing. A transfer that has already ended, or never existed, is an error \
            (exit 1).

            Examples:
              notifyctl transfer cancel 7
            """)

    @OptionGroup var transfer: TransferIDArgument

    func run() throws {
        _ = try DaemonClient.connect().call(TransferCommand.interface, "CancelTransfer", [.uint64(transfer.id)])
    }
}

/// `notifyctl transfer suspend ID`.
struct TransferSuspend: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suspend",
        abstract: "Hold a transfer; what was transferred is kept (SuspendTransfer).",
        discussion: """
            Prints nothing; nothing changes when it is already suspended. It stays held, across \
            restarts, until transfer resume.

            Examples:
              notifyctl transfer suspend 7
            """)

    @OptionGroup var transfer: TransferIDArgument

    func run() throws {
        _ = try DaemonClient.connect().call(TransferCommand.interface, "SuspendTransfer", [.uint64(transfer.id)])
    }
}

/// `notifyctl transfer resume ID`.
struct TransferResume: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Let a suspended transfer go on from where it was (ResumeTransfer).",
        discussion: """
            Prints nothing; nothing changes when it is not suspended.

            Examples:
              notifyctl transfer resume 7
            """)

    @OptionGroup var transfer: TransferIDArgument

    func run() throws {
        _ = try DaemonClient.connect().call(TransferCommand.interface, "ResumeTransfer", [.uint64(transfer.id)])
    }
}
