import ArgumentParser
import DBus

/// `notifyctl download URL [-o PATH] ...`: a background download
/// (`Download`), to the Downloads folder unless told otherwise.
struct Download: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Download a file in the background (notifyd carries it out, across restarts).",
        discussion: """
            Calls Download: notifyd downloads URL (http or https) by itself, waits for a network \
            (not a metered one unless --allow-metered), resumes after a lost connection, and at the \
            end posts a popup and reports to the session. Without -o the file goes to your \
            Downloads folder (xdg-user-dir DOWNLOAD, else ~/Downloads, else your home), named from \
            the server's Content-Disposition or the URL, never over a file already there \
            ("name (1).ext"); so does -o DIR for an existing directory. Any other -o PATH is the \
            file to write; an existing one is replaced only with --overwrite.

            Prints the transfer ID. With --wait, it then shows the progress (a line redrawn in \
            place on a terminal, else a line a second and one on every change) and prints the \
            file's final path: exit 0 once completed, 1 when it failed or was cancelled (the \
            reason is printed). Ctrl-C stops following, not the download (exit 130). With \
            --json, one object: the ID, app, session and path; with --wait, the transfer's \
            details at the end instead.

            Examples:
              notifyctl download https://example.org/debian.iso
              notifyctl download https://example.org/debian.iso --wait
              notifyctl download https://example.org/a.iso -o /tmp/a.iso --overwrite
              notifyctl download https://example.org/a.iso -o ~/ISOs --allow-metered
              notifyctl download https://example.org/a.iso --header Cookie:id=42
              notifyctl download https://example.org/a.iso --app org.example.Get
              notifyctl download https://example.org/a.iso --json | jq .transfer_id
            """)

    @Argument(help: ArgumentHelp("What to download (http or https).", valueName: "url"))
    var url: String

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: ArgumentHelp(
            "The file to write, or an existing directory to name the file in (default: your Downloads folder).",
            valueName: "path"),
        completion: .file())
    var outputPath: String?

    @Option(name: .long, help: ArgumentHelp("The SHA-256 the file must have (64 hex digits).", valueName: "hex"))
    var sha256: String?

    @Flag(name: .long, help: "Download on a metered network too (mobile data, a phone's hotspot).")
    var allowMetered = false

    @Flag(name: .long, help: "Replace the file at PATH if there is one.")
    var overwrite = false

    @OptionGroup var transfer: TransferOptions

    @OptionGroup var output: OutputOptions

    func validate() throws {
        try TransferURL.validate(url)
        if let sha256, sha256.utf8.count != 64 || !sha256.utf8.allSatisfy(Self.isHexDigit) {
            throw ValidationError("--sha256 takes the 64 hexadecimal digits of a SHA-256 digest")
        }
        if outputPath == "" { throw ValidationError("-o needs a path") }
    }

    func run() throws {
        let path = try destination()
        var options = transfer.dictionary
        if let sha256 { options["sha256"] = .string(sha256.lowercased()) }
        if allowMetered { options["allow-metered"] = .boolean(true) }
        if overwrite { options["overwrite"] = .boolean(true) }
        try TransferLaunch(
            member: "Download", app: transfer.app, session: transfer.sessionID(kind: "download"),
            arguments: [.string(url), .string(path)], options: options, path: path
        ).run(wait: transfer.wait, output: output)
    }

    /// The path for notifyd: absolute, with a trailing `/` for a directory
    /// in which notifyd names the file.
    func destination() throws(NotifyctlError) -> String {
        guard let outputPath else { return Self.directoryPath(try DownloadsFolder.current()) }
        let path = LocalPath.absolute(outputPath, from: outputPath.hasPrefix("/") ? "/" : try LocalPath.currentDirectory())
        return LocalPath.isDirectory(path) ? Self.directoryPath(path) : path
    }

    static func directoryPath(_ path: String) -> String {
        path.hasSuffix("/") ? path : path + "/"
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }
}
