import ArgumentParser
import DBus
import NotifyCore

/// `notifyctl transfers`: `ListTransfers`.
struct Transfers: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the background downloads and uploads: those not ended, then the last 100 ended.",
        discussion: """
            Calls ListTransfers. Prints a table sorted by ID: the transfer ID, its app, its state \
            (queued, waiting, running, suspended, completed, failed, cancelled), how far it is \
            (- when the size is unknown), the bytes done and in all (? when unknown), and the \
            reason for its state; nothing when there is none. A listing is one look, so it shows \
            no rate: download --wait and upload --wait do. With --json, an array of objects (keys \
            in snake_case; times in UTC, *_us in Unix microseconds).

            Examples:
              notifyctl transfers
              notifyctl transfers --json
              notifyctl transfers --json | jq -r '.[] | select(.state == "failed") | .id'
            """)

    @OptionGroup var output: OutputOptions

    func run() throws {
        let transfers = try Self.list(DaemonClient.connect())
        output.emit(text: TransferInfo.table(transfers), json: .array(transfers.map(\.json)))
    }

    /// Every transfer notifyd lists, sorted by ID.
    static func list(_ client: DaemonClient, timeoutMilliseconds: Int32 = -1) throws(NotifyctlError) -> [TransferInfo] {
        let reply = try client.call(
            NotifydNames.transfersInterface, "ListTransfers", timeoutMilliseconds: timeoutMilliseconds)
        do {
            return try TransferInfo.list(from: reply)
        } catch {
            throw DaemonClient.unexpectedReply("ListTransfers", error)
        }
    }

    /// Completion of a transfer ID: those not ended, as notifyd lists them
    /// now (nothing when it cannot be asked within a second).
    static let liveIDs = CompletionKind.custom { _, _, prefix in
        guard let client = try? DaemonClient.connect(),
            let transfers = try? list(client, timeoutMilliseconds: 1000)
        else { return [] }
        return transfers.filter { !$0.hasEnded }.map { String($0.id) }.filter { $0.hasPrefix(prefix) }
    }
}
