import ArgumentParser
import DBus
import Testing

@testable import notifyctl

/// How `download`, `upload` and `transfer` read their command lines: what
/// notifyd is asked, and bad usage (exit 2) found before it is asked.
@Suite struct TransferParsingTests {
    func parse(_ arguments: String...) throws -> any ParsableCommand {
        try NotifyctlCommand.parseAsRoot(arguments)
    }

    /// The exit status if parsing fails, with the message; 0 when it parses.
    func failure(_ arguments: String...) -> (status: Int32, message: String) {
        failure(arguments)
    }

    func failure(_ arguments: [String]) -> (status: Int32, message: String) {
        do {
            _ = try NotifyctlCommand.parseAsRoot(arguments)
            return (ExitStatus.success, "")
        } catch {
            return (NotifyctlCommand.exitStatus(for: error), NotifyctlCommand.fullMessage(for: error))
        }
    }

    @Test func downloadDefaults() throws {
        let download = try #require(try parse("download", "https://example.org/a.iso") as? Download)
        #expect(download.url == "https://example.org/a.iso")
        #expect(download.outputPath == nil && download.sha256 == nil)
        #expect(!download.allowMetered && !download.overwrite && !download.transfer.wait && !download.output.json)
        #expect(download.transfer.app == "notifyctl")
        #expect(download.transfer.headers.isEmpty && download.transfer.dictionary.isEmpty)
        let session = download.transfer.sessionID(kind: "download")
        #expect(session.hasPrefix("download-") && session.split(separator: "-").count == 3)
    }

    @Test func downloadOptions() throws {
        let download = try #require(
            try parse(
                "download", "HTTPS://example.org/a.iso", "-o", "/tmp/a.iso", "--app", "org.example.Get", "--session",
                "s1", "--sha256", String(repeating: "AB", count: 32), "--header", "Cookie: id=42", "--header",
                "X-Token:  t  ", "--allow-metered", "--overwrite", "--wait", "--json") as? Download)
        #expect(download.outputPath == "/tmp/a.iso" && download.transfer.app == "org.example.Get")
        #expect(download.transfer.sessionID(kind: "download") == "s1")
        #expect(download.allowMetered && download.overwrite && download.transfer.wait && download.output.json)
        #expect(
            download.transfer.headers == [
                try HTTPHeader(parsing: "Cookie: id=42"), try HTTPHeader(parsing: "X-Token: t"),
            ])
        #expect(download.transfer.dictionary["headers"] == ["Cookie": "id=42", "X-Token": "t"].dbusValue)
        #expect(try parse("download", "https://x.org/a", "--output", "b") is Download)
    }

    @Test(arguments: [
        (["download", "ftp://example.org/a"], "only http and https URLs can be transferred, not 'ftp' URLs"),
        (["download", "example.org/a"], "only http and https URLs can be transferred, not 'example.org/a'"),
        (["download", "https:///a"], "the URL has no host"),
        (["download", "https://a b"], "a space or a control character"),
        (["download", "https://x.org/a", "--sha256", "abc"], "--sha256 takes the 64 hexadecimal digits"),
        (["download", "https://x.org/a", "--header", "NoColon"], "the form 'NAME: VALUE'"),
        (["download", "https://x.org/a", "--header", "Bad Name: secret"], "'Bad Name' is not a header name"),
        (["download", "https://x.org/a", "--header", "A: 1", "--header", "a: 2"], "given twice"),
        (["download", "https://x.org/a", "-o", ""], "-o needs a path"),
        (["download"], "Missing expected argument '<url>'"),
        (["upload", "a.txt", "file:///etc/passwd"], "not 'file' URLs"),
        (["upload", "dir/", "https://x.org/a"], "is a directory"),
        (["upload", "a.txt", "https://x.org/a", "--method", "GET"], "'GET' is invalid for '--method <method>'"),
        (["transfer", "show", "seven"], "'seven' is invalid for '<id>'"),
        (["transfer", "cancel"], "Missing expected argument '<id>'"),
        (["transfer", "pause", "7"], "unexpected arguments: 'pause', '7'"),
    ])
    func badUsageExits2(_ arguments: [String], _ message: String) {
        let (status, text) = failure(arguments)
        #expect(status == ExitStatus.usage, "\(arguments)")
        #expect(text.contains(message), "\(arguments): \(text)")
    }

    /// A header's value may be a secret: no message repeats it.
    @Test func headerValuesAreNeverRepeated() {
        for header in ["Bad Name: s3cret", "A: s3cret\r\nB: x", "s3cret"] {
            let (status, text) = failure("download", "https://x.org/a", "--header", header)
            #expect(status == ExitStatus.usage)
            #expect(!text.contains("s3cret"), "\(text)")
        }
    }

    @Test func uploadMethodAndFile() throws {
        let upload = try #require(try parse("upload", "a.txt", "https://x.org/a", "--method", "post") as? Upload)
        #expect(upload.file == "a.txt" && upload.url == "https://x.org/a" && upload.method == .post)
        #expect((try parse("upload", "/a", "https://x.org/a") as? Upload)?.method == .put)
    }

    @Test func transferSubcommands() throws {
        #expect((try parse("transfer", "show", "7") as? TransferShow)?.transfer.id == 7)
        #expect((try parse("transfer", "show", "7", "--json") as? TransferShow)?.output.json == true)
        #expect((try parse("transfer", "cancel", "18446744073709551615") as? TransferCancel)?.transfer.id == .max)
        #expect((try parse("transfer", "suspend", "7") as? TransferSuspend)?.transfer.id == 7)
        #expect((try parse("transfer", "resume", "7") as? TransferResume)?.transfer.id == 7)
        #expect((try parse("transfers", "--json") as? Transfers)?.output.json == true)
    }

    // MARK: Paths

    @Test(arguments: [
        ("a.iso", "/home/u", "/home/u/a.iso"),
        ("./a.iso", "/home/u", "/home/u/a.iso"),
        ("../b/a.iso", "/home/u", "/home/b/a.iso"),
        ("/tmp//x/../a.iso", "/", "/tmp/a.iso"),
        ("isos/", "/home/u", "/home/u/isos/"),
        (".", "/home/u", "/home/u/"),
        ("..", "/home/u", "/home/"),
        ("/", "/", "/"),
    ])
    func pathsAreMadeAbsolute(_ path: String, _ directory: String, _ expected: String) {
        #expect(LocalPath.absolute(path, from: directory) == expected)
    }

    /// -o naming an existing directory is passed with a trailing "/"
    /// (notifyd names the file); a new name is the file itself.
    @Test func outputDirectoryGetsATrailingSlash() throws {
        var download = try #require(try parse("download", "https://x.org/a", "-o", "/tmp") as? Download)
        #expect(try download.destination() == "/tmp/")
        download.outputPath = "/tmp/notifyctl-no-such-file.iso"
        #expect(try download.destination() == "/tmp/notifyctl-no-such-file.iso")
        download.outputPath = "/"
        #expect(try download.destination() == "/")
    }
}
