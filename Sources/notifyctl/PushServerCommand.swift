import ArgumentParser
import DBus
import Glibc
import NotifyCore

/// `notifyctl push server`: `SetServer`.
struct PushServer: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "server",
        abstract: "Set the push server notifyd's distributor uses, for every app.",
        discussion: """
            KIND is xmpp (ADDRESS: an XMPP account, user@example.org, on a server with UnifiedPush \
            support, such as Prosody with mod_unified_push), ntfy (ADDRESS: the server's URL, \
            https://ntfy.sh or your own; one topic per registration) or none (no ADDRESS). The XMPP \
            password is read from --password-file (its first line), or asked on the terminal without echo; \
            it is never taken on the command line. TLS is required and the server's certificate verified \
            against the system's CAs and --ca-file, except to a loopback address. Every registration moves \
            to the new server and its app gets a new endpoint.

            Examples:
              notifyctl push server xmpp alice@example.org
              notifyctl push server xmpp alice@example.org --password-file ~/push.pass
              notifyctl push server xmpp alice@localhost --host 127.0.0.1 --ca-file ca.pem
              notifyctl push server ntfy https://ntfy.sh
              notifyctl push server none
            """)

    @Argument(help: ArgumentHelp("xmpp, ntfy or none.", valueName: "kind"))
    var kind: String

    @Argument(help: ArgumentHelp("The account (xmpp), the server's URL (ntfy); nothing for none.", valueName: "address"))
    var address: String?

    @Option(help: ArgumentHelp("Read the password from the first line of this file.", valueName: "file"))
    var passwordFile: String?

    @Option(help: ArgumentHelp("Connect to this host instead of the address's own.", valueName: "host"))
    var host: String?

    @Option(help: ArgumentHelp("Connect to this port (1 to 65535).", valueName: "n"))
    var port: UInt16?

    @Option(help: ArgumentHelp("Verify the server's certificate with the CAs in this PEM file.", valueName: "file"))
    var caFile: String?

    func validate() throws {
        switch kind {
        case "none":
            guard address == nil, passwordFile == nil, host == nil, port == nil, caFile == nil else {
                throw ValidationError("'none' takes no address and no options")
            }
        case "xmpp":
            guard address != nil else { throw ValidationError("xmpp needs the account, user@example.org") }
            if port == 0 { throw ValidationError("--port must be 1 to 65535") }
        case "ntfy":
            guard address != nil else { throw ValidationError("ntfy needs the server's URL, such as https://ntfy.sh") }
            guard passwordFile == nil, host == nil, port == nil else {
                throw ValidationError("ntfy takes only --ca-file: its URL says where it is")
            }
        default: throw ValidationError("unknown kind '\(kind)': use xmpp, ntfy or none")
        }
    }

    func run() throws {
        var options: [String: DBusValue] = [:]
        if kind == "xmpp" {
            options["password"] = .string(try password())
            if let host { options["host"] = .string(host) }
            if let port { options["port"] = .uint16(port) }
        }
        if kind != "none" {
            if let caFile { options["ca-file"] = .string(caFile.hasPrefix("/") ? caFile : EventOptions.absolute(caFile, in: try Event.currentDirectory())) }
        }
        _ = try DaemonClient.connect().call(
            NotifydNames.pushInterface, "SetServer", [.string(kind), .string(address ?? ""), .vardict(options)])
        print(kind == "none" ? "No push server is set." : "Push server set: \(kind) \(Output.printable(address ?? "")).")
    }

    /// The password: the file's first line, or asked on the terminal.
    private func password() throws(NotifyctlError) -> String {
        if let passwordFile {
            guard let text = BrowserFiles.text(passwordFile, limit: 4096) else {
                throw NotifyctlError(.usage, "cannot read the password file \(passwordFile)")
            }
            let line = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            guard !line.isEmpty else { throw NotifyctlError(.usage, "the password file \(passwordFile) is empty") }
            return line
        }
        guard isatty(0) == 1 else {
            throw NotifyctlError(.usage, "no terminal to ask the password on: give --password-file")
        }
        return try Self.askWithoutEcho("Password for \(address ?? ""): ")
    }

    /// Reads one line from the terminal with echo off (restored after).
    static func askWithoutEcho(_ prompt: String) throws(NotifyctlError) -> String {
        var saved = termios()
        guard tcgetattr(0, &saved) == 0 else { throw NotifyctlError(.usage, "cannot read the terminal's settings") }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        // Echo off before the prompt, as getpass does: what is typed after
        // the prompt must not be flushed.
        tcsetattr(0, TCSAFLUSH, &quiet)
        Output.standardError(prompt, newline: false)
        let line = readLine(strippingNewline: true)
        tcsetattr(0, TCSAFLUSH, &saved)
        Output.standardError("")
        guard let line, !line.isEmpty else { throw NotifyctlError(.usage, "no password given") }
        return line
    }
}
