import ArgumentParser
import DBus
import Glibc
import NotifyCore

/// `notifyctl fetch now APP [--wait]`: Xcode's "Simulate Background Fetch".
struct FetchNow: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "now",
        abstract: "Start a fetch of the app at once, outside its schedule (FetchNow); --wait prints its result.",
        discussion: """
            Works whatever the interval and the switch; one fetch per app at a time (an error while \
            one runs). Prints the fetch ID; with --wait, waits for FetchCompleted (at most the fetch's \
            30 seconds) and prints the result instead: new-data or no-data (exit 0), failed or expired \
            (exit 1). The app is woken as for a scheduled fetch: PerformFetch, ActivateAction, or its \
            desktop file's background-fetch action.

            Examples:
              notifyctl fetch now org.example.Reader
              notifyctl fetch now org.example.Reader --wait
              notifyctl fetch now org.example.Reader --wait --json
            """)

    @Argument(help: ArgumentHelp("The app (a desktop entry ID).", valueName: "app"))
    var app: String

    @Flag(help: "Wait for the fetch to end and print its result.")
    var wait = false

    @OptionGroup var output: OutputOptions

    func run() throws {
        let client = try DaemonClient.connect()
        guard wait else {
            let id = try client.call(FetchCommand.interface, "FetchNow", [.string(app)], returning: UInt64.self)
            output.emit(text: [String(id)], json: .object([("fetch_id", .uint(id))]))
            return
        }
        // Subscribed before the fetch starts, so its end cannot be missed.
        let waiter = try FetchCompletionWaiter(client: client)
        let id = try client.call(FetchCommand.interface, "FetchNow", [.string(app)], returning: UInt64.self)
        let result = try waiter.result(of: id)
        output.emit(text: [result], json: .object([("fetch_id", .uint(id)), ("result", .string(result))]))
        if result == "failed" || result == "expired" { throw ExitCode(ExitStatus.daemonError) }
    }
}

/// Follows `FetchCompleted` on an event loop until the fetch asked for ends.
final class FetchCompletionWaiter {
    /// Longer than any fetch's 30 seconds.
    static let limitSeconds: UInt64 = 60

    private let loop: EventLoop
    private let client: DaemonClient
    private var results: [UInt64: String] = [:]
    private var wanted: UInt64?
    private var failure: NotifyctlError?

    init(client: DaemonClient) throws(NotifyctlError) {
        self.client = client
        do {
            loop = try EventLoop()
            try loop.handleSignals([SIGINT, SIGTERM]) { [unowned self] _ in
                stop(NotifyctlError(.daemon, "interrupted before the fetch ended"))
            }
            let connection = client.connection
            try connection.attach(to: loop)
            connection.onDisconnect { [unowned self] in stop(NotifyctlError(.notRunning, "the session bus went away.")) }
            try connection.subscribe(
                DBusMatchRule(sender: NotifydNames.busName, interface: NotifydNames.fetchInterface, member: "FetchCompleted")
            ) { [unowned self] message in completed(message) }
        } catch {
            throw DaemonClient.failure(for: error)
        }
    }

    /// The result of fetch `id`: at once when it already ended, else once it does.
    func result(of id: UInt64) throws(NotifyctlError) -> String {
        wanted = id
        _ = loop.scheduleTimer(afterNanoseconds: Self.limitSeconds * 1_000_000_000) { [unowned self] in
            stop(NotifyctlError(.daemon, "fetch \(id) did not end within \(Self.limitSeconds) s"))
        }
        while results[id] == nil, failure == nil {
            loop.run()
        }
        if let result = results[id] { return result }
        throw failure ?? NotifyctlError(.daemon, "fetch \(id) did not end")
    }

    private func completed(_ message: DBusMessage) {
        guard let arguments = try? message.arguments(), arguments.count == 3, case .uint64(let id) = arguments[1],
            case .string(let result) = arguments[2]
        else { return }
        results[id] = result
        if id == wanted { loop.stop() }
    }

    private func stop(_ error: NotifyctlError) {
        failure = error
        loop.stop()
    }
}
