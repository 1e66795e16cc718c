import DBus
import Foundation
import Testing
import NotifyTesting

/// The real yt-dlp, downloading a direct link to a small clip from a local
/// web server (its generic extractor), runs notifyd-yt-dlp with the
/// `--exec` line of contrib/README.md.
extension ContribHookTests {
    @Test func ytDlpRunsTheReadmesExecLine() throws {
        let stem = String(Self.hostileName.dropLast(".bin".count))
        let (result, out) = try ytDlp(clip: stem + ".mp4", app: nil, run: "hostile")
        #expect(result.status == 0, "yt-dlp: \(result.stdout) \(result.stderr)")
        #expect(!result.stderr.contains("warning: notifyd was not told"), "\(result.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path)
        #expect(files.count == 1, "yt-dlp wrote one file: \(files)")

        let session = try waitForSession("yt-dlp:\(stem)")
        #expect(session.app == "yt-dlp" && session.pending == 1)
        let event = try recordedEvent("yt-dlp:\(stem)")
        #expect(event["title"] == .string(stem), "yt-dlp's title of a direct link: the file's name")
        #expect(event["path"] == files.first.map { .string(out.appendingPathComponent($0).path) })
        try expectNothingRan(in: out)
        try expectNothingRan(in: directory)
    }

    /// Defect 9: a video reported under the default app, then again with
    /// NOTIFYD_HOOK_APP set, is recorded both times.
    @Test func ytDlpReportsTheSameVideoForAnotherApp() throws {
        for (run, app) in [nil, "org.gnome.Terminal"].enumerated() {
            let (result, _) = try ytDlp(clip: "holiday.mp4", app: app, run: "run \(run)")
            #expect(result.status == 0, "yt-dlp: \(result.stderr)")
            #expect(!result.stderr.contains("warning: notifyd was not told"), "\(result.stderr)")
        }
        let first = try waitForSession("yt-dlp:holiday")
        let second = try waitForSession("yt-dlp@org.gnome.Terminal:holiday")
        #expect(first.app == "yt-dlp" && first.pending == 1)
        #expect(second.app == "org.gnome.Terminal" && second.pending == 1)
        #expect(try fixture.badge("org.gnome.Terminal") == 1)
        let event = try recordedEvent("yt-dlp@org.gnome.Terminal:holiday")
        #expect(event["title"] == .string("holiday"))
    }

    /// Serves a 4 KB `clip` and downloads it with yt-dlp into a new
    /// directory named `run`, the hook on PATH as a user installs it.
    func ytDlp(clip: String, app: String?, run: String) throws -> (ProcessResult, URL) {
        let ytDlp = try requireTool("yt-dlp", package: "yt-dlp")
        let root = try workDirectory("videos")
        try Data(repeating: 0x55, count: 4096).write(to: root.appendingPathComponent(clip))
        let server = try LocalHTTPServer(serving: root, scratch: try workDirectory("server \(run)"))
        defer { server.stop() }
        let out = try workDirectory(run)
        let result = try runTool(
            ytDlp,
            [
                "--ignore-config", "--no-cache-dir", "--no-progress", "--socket-timeout", "5", "-P", out.path,
                "--exec", try readmeYtDlpExec(), server.url(percentEncoded(clip)),
            ],
            environment: toolEnvironment(app: app, path: [contrib.appendingPathComponent("yt-dlp").path]), in: out)
        return (result, out)
    }

    /// The command of contrib/README.md's `yt-dlp --exec '...' URL` line.
    func readmeYtDlpExec() throws -> String {
        let section = try readmeSection("yt-dlp")
        guard let line = section.split(separator: "\n").first(where: { $0.hasPrefix("yt-dlp --exec '") }),
            let open = line.firstIndex(of: "'"), let close = line[line.index(after: open)...].firstIndex(of: "'")
        else { throw TestFailure("contrib/README.md has no `yt-dlp --exec '...' URL` line under ## yt-dlp") }
        return String(line[line.index(after: open)..<close])
    }
}
