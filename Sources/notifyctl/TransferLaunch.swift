import ArgumentParser
import DBus
import NotifyCore

/// What `download` and `upload` share once their arguments are checked:
/// the call to notifyd, the transfer ID printed, and `--wait`.
struct TransferLaunch {
    /// `Download` or `Upload`.
    let member: String
    let app: String
    let session: String
    /// The method's arguments after the app and the session.
    let arguments: [DBusValue]
    let options: [String: DBusValue]
    /// The local path, as given to notifyd (a download's may end in `/`).
    let path: String

    /// Asks notifyd for the transfer; with `wait`, follows it to its end.
    func run(wait: Bool, output: OutputOptions) throws {
        let client = try DaemonClient.connect()
        let call: [DBusValue] = [.string(app), .string(session)] + arguments + [.vardict(options)]
        guard wait else {
            let id = try client.call(NotifydNames.transfersInterface, member, call, returning: UInt64.self)
            output.emit(text: [String(id)], json: started(id))
            return
        }
        // Subscribed before the transfer exists: none of its changes is missed.
        let display = TransferDisplay(mode: TransferDisplay.mode(json: output.json))
        let follower = try TransferFollower(client: client, display: display)
        let id = try client.call(NotifydNames.transfersInterface, member, call, returning: UInt64.self)
        if !output.json {
            Output.line(String(id))
            Output.flush()
        }
        switch try follower.follow(id, app: app, session: session) {
        case .interrupted(let signal):
            Output.error(
                "stopped following transfer \(id), which goes on: notifyctl transfer show \(id) "
                    + "(or cancel \(id) to stop it)")
            throw ExitCode(128 + signal)
        case .ended(let info):
            try finish(info, output: output)
        }
    }

    /// Prints how the transfer ended: the file (a download's final path,
    /// an upload's URL), or why it failed (exit 1).
    func finish(_ info: TransferInfo, output: OutputOptions) throws {
        if output.json { Output.json(info.json) }
        switch info.state {
        case "completed":
            if !output.json { Output.line(Output.printable(member == "Upload" ? info.text("url") ?? "" : info.path)) }
        case "cancelled":
            throw NotifyctlError(.daemon, "transfer \(info.id) was cancelled" + Self.because(info.reason))
        default:
            throw NotifyctlError(.daemon, "transfer \(info.id) \(info.state)" + Self.because(info.reason))
        }
    }

    private static func because(_ reason: String) -> String {
        reason.isEmpty ? "" : ": " + Output.printable(reason)
    }

    /// `{"transfer_id":7,"app":"notifyctl","session":"download-…","path":"/home/…/Downloads/"}`.
    private func started(_ id: UInt64) -> JSON {
        .object([("transfer_id", .uint(id)), ("app", .string(app)), ("session", .string(session)), ("path", .string(path))])
    }
}
