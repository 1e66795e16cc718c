import DBus
import Foundation
import Testing
import NotifyTesting

/// notifyd-download around the real curl and wget (defect 8): which file it
/// names, by the tool's path or name, for each way of saying where to write.
extension ContribHookTests {
    /// `notifyd-fetch`, the wrapper's old name, runs it for one more
    /// release after a one-line warning.
    @Test func theOldNameRunsTheDownloadWrapperAfterAWarning() throws {
        let result = try runProcess(
            contrib.appendingPathComponent("fetch/notifyd-fetch").path, ["sh", "-c", "exit 3"],
            environment: hookEnvironment(app: "org.example.Old"))
        #expect(result.status == 3, "the command's status")
        #expect(result.stderr == "notifyd-fetch: warning: notifyd-fetch is now notifyd-download; the old name goes away in the next release\n")
        try waitUntil("notifyd-download reported the run", seconds: 10) {
            try listSessions().contains { $0.app == "org.example.Old" && $0.id.hasPrefix("download:") }
        }
    }

    @Test func downloadNamesCurlsRemoteNameWhenCurlIsAPath() throws {
        let curl = try requireTool("curl", package: "curl")
        let server = try LocalHTTPServer(serving: try webRoot(), scratch: directory)
        defer { server.stop() }
        let here = try workDirectory("curl -O")
        let (result, event) = try download([curl, "-fsSLO", server.url("file.bin")], in: here)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(event["title"] == .string("file.bin"))
        #expect(event["path"] == .string(here.appendingPathComponent("file.bin").path))
        #expect(try listSessions().contains { $0.app == "curl" && $0.id.hasPrefix("download:") }, "the default app is the name")
    }

    @Test func downloadNamesWgetsOutputDocumentWhenWgetIsAPath() throws {
        let wget = try requireTool("wget", package: "wget")
        let server = try LocalHTTPServer(serving: try webRoot(), scratch: directory)
        defer { server.stop() }
        let here = try workDirectory("wget -O")
        let (result, event) = try download([wget, "-q", "-O", "new.bin", server.url("file.bin")], in: here)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(event["title"] == .string("new.bin"))
        #expect(event["path"] == .string(here.appendingPathComponent("new.bin").path))
        #expect(try listSessions().contains { $0.app == "wget" && $0.id.hasPrefix("download:") })
    }

    @Test func downloadNamesTheFirstOfCurlsOutputs() throws {
        _ = try requireTool("curl", package: "curl")
        let root = try webRoot()
        try Data(repeating: 1, count: 10).write(to: root.appendingPathComponent("other.bin"))
        let server = try LocalHTTPServer(serving: root, scratch: directory)
        defer { server.stop() }
        let here = try workDirectory("curl -o -o")
        let (result, event) = try download(
            ["curl", "-fsS", "-o", "one.bin", server.url("file.bin"), "-o", "two.bin", server.url("other.bin")], in: here)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: here.appendingPathComponent("two.bin").path))
        #expect(event["title"] == .string("one.bin"), "curl writes the first URL to the first -o")
        #expect(event["path"] == .string(here.appendingPathComponent("one.bin").path))

        let (_, remoteFirst) = try download(
            ["curl", "-fsS", "-O", server.url("other.bin"), "-o", "three.bin", server.url("file.bin")], in: here)
        #expect(remoteFirst["title"] == .string("other.bin"))
        #expect(remoteFirst["path"] == .string(here.appendingPathComponent("other.bin").path))
    }

    /// Output to /dev/null or standard output: no path, and the URL's file
    /// name as the title (never `null` or `-`).
    @Test func downloadReportsNoPathForDevNullOrStandardOutput() throws {
        _ = try requireTool("curl", package: "curl")
        _ = try requireTool("wget", package: "wget")
        let server = try LocalHTTPServer(serving: try webRoot(), scratch: directory)
        defer { server.stop() }
        let here = try workDirectory("nowhere")
        let url = server.url("file.bin")
        let runs = [
            ["curl", "-fsS", "-o", "/dev/null", url], ["curl", "-fsS", "-o", "-", url], ["curl", "-fsS", url],
            ["wget", "-q", "-O", "/dev/null", url], ["wget", "-q", "-O", "-", url], ["wget", "-qO-", url],
        ]
        for arguments in runs {
            let (result, event) = try download(arguments, in: here)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(event["title"] == .string("file.bin"), "\(arguments): \(event)")
            #expect(event["path"] == nil, "\(arguments): \(event)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: here.path).isEmpty, "nothing was written here")
    }

    /// A hostile file name, written by curl -o and by wget from the URL
    /// (percent-decoded), is reported exactly and never run.
    @Test func downloadReportsHostileNamesExactly() throws {
        _ = try requireTool("curl", package: "curl")
        _ = try requireTool("wget", package: "wget")
        let root = try webRoot()
        try Data(repeating: 7, count: 100).write(to: root.appendingPathComponent(Self.hostileName))
        let server = try LocalHTTPServer(serving: root, scratch: directory)
        defer { server.stop() }
        let url = server.url(percentEncoded(Self.hostileName))
        let runs = [["curl", "-fsS", "-o", Self.hostileName, url], ["wget", "-q", url]]
        for arguments in runs {
            let here = try workDirectory("hostile \(arguments[0])")
            let (result, event) = try download(arguments, in: here)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(event["title"] == .string(Self.hostileName), "\(arguments)")
            #expect(event["path"] == .string(here.appendingPathComponent(Self.hostileName).path), "\(arguments)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: here.path) == [Self.hostileName])
            try expectNothingRan(in: here)
        }
    }

    /// Runs `notifyd-download ARGUMENTS` in `directory` (app: the command's
    /// default) and returns its result and the event notifyd recorded.
    func download(_ arguments: [String], in directory: URL) throws -> (ProcessResult, [String: DBusValue]) {
        recorder.reset()
        let result = try runTool(
            contrib.appendingPathComponent("download/notifyd-download").path, arguments,
            environment: toolEnvironment(app: nil), in: directory)
        #expect(!result.stderr.contains("warning"), "\(arguments): \(result.stderr)")
        return (result, try fetchEvent())
    }
}
