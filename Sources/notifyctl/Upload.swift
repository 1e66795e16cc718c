import ArgumentParser
import DBus
import Glibc

/// `notifyctl upload FILE URL ...`: a background upload (`Upload`).
struct Upload: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Upload a file in the background (PUT, or POST), carried out by notifyd.",
        discussion: """
            Calls Upload: notifyd sends FILE to URL (http or https) with PUT, or POST with \
            --method POST, by itself: it waits for a network, retries after a lost connection, \
            and at the end posts a popup and reports to the session. A relative FILE is taken \
            from the current directory.

            Prints the transfer ID. With --wait, it then shows the progress as download --wait \
            does and prints the URL at the end: exit 0 once completed, 1 when it failed or was \
            cancelled (the reason is printed).

            Examples:
              notifyctl upload report.pdf https://dav.example.org/files/report.pdf
              notifyctl upload photo.jpg https://example.org/upload --method POST --wait
              notifyctl upload a.tar https://example.org/a.tar --header X-Api-Key:s3cret
            """)

    @Argument(help: ArgumentHelp("The file to upload.", valueName: "file"), completion: .file())
    var file: String

    @Argument(help: ArgumentHelp("Where to (http or https).", valueName: "url"))
    var url: String

    @Option(name: .long, help: ArgumentHelp("The request's method.", valueName: "method"))
    var method: UploadMethod = .put

    @OptionGroup var transfer: TransferOptions

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if file.isEmpty { throw ValidationError("give the file to upload") }
        if file.hasSuffix("/") { throw ValidationError("'\(Output.printable(file))' is a directory, not a file") }
        try TransferURL.validate(url)
    }

    func run() throws {
        let path = LocalPath.absolute(file, from: file.hasPrefix("/") ? "/" : try LocalPath.currentDirectory())
        try Self.checkReadable(path)
        var options = transfer.dictionary
        if method == .post { options["method"] = .string(method.rawValue) }
        try TransferLaunch(
            member: "Upload", app: transfer.app, session: transfer.sessionID(kind: "upload"),
            arguments: [.string(path), .string(url)], options: options, path: path
        ).run(wait: transfer.wait, output: output)
    }

    /// A missing file or a directory is bad usage (exit 2), said before
    /// notifyd queues a transfer that could only fail.
    static func checkReadable(_ path: String) throws(NotifyctlError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw NotifyctlError(.usage, "cannot upload \(Output.printable(path)): \(String(cString: strerror(errno)))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw NotifyctlError(.usage, "cannot upload \(Output.printable(path)): it is not a regular file")
        }
    }
}

/// `--method`: PUT (the default) or POST, in any case.
enum UploadMethod: String, ExpressibleByArgument, CaseIterable {
    case put = "PUT"
    case post = "POST"

    init?(argument: String) {
        self.init(rawValue: argument.uppercased())
    }
}
