import DBus
import Foundation
import NotifyTesting
import Testing

/// contrib/feed as a user installs it: notifyd launches the desktop file's
/// `background-fetch` action (`Exec=notifyd-feed`, found on PATH), which
/// downloads the feeds from a local web server with curl, compares them
/// with the last copies, reports new articles and completes the fetch.
@Suite struct ContribFeedTests {
    static let app = "org.notifyd.Feed"
    static let fetch = "org.notifyd.Notifyd1.Fetch"
    let fixture: Fixture
    let recorder: SignalRecorder
    let web: URL
    let config: URL
    let server: LocalHTTPServer

    init() throws {
        let root = try makeTemporaryDirectory(prefix: "notifyd-feed")
        web = root.appendingPathComponent("web")
        config = root.appendingPathComponent("config")
        let applications = root.appendingPathComponent("share/applications")
        for directory in [web, config.appendingPathComponent("notifyd-feed"), applications] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        let contrib = Executables.repositoryRoot().appendingPathComponent("contrib/feed")
        // The desktop file exactly as shipped.
        try FileManager.default.copyItem(
            at: contrib.appendingPathComponent("org.notifyd.Feed.desktop"),
            to: applications.appendingPathComponent("org.notifyd.Feed.desktop"))
        let path = [contrib.path, Executables.directory.path, ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        fixture = try Fixture(extraEnvironment: [
            "PATH": path.joined(separator: ":"), "XDG_DATA_DIRS": root.appendingPathComponent("share").path + ":/usr/share",
            "XDG_CONFIG_HOME": config.path, "XDG_STATE_HOME": root.appendingPathComponent("state").path,
            "NOTIFYCTL": Executables.notifyctl,
        ])
        recorder = try SignalRecorder(address: fixture.bus.address, rules: [DBusMatchRule(sender: "org.notifyd.Notifyd1")])
        server = try LocalHTTPServer(serving: web, scratch: root)
    }

    func writeFeeds(_ urls: [String]) throws {
        try (urls.joined(separator: "\n") + "\n")
            .write(to: config.appendingPathComponent("notifyd-feed/feeds"), atomically: true, encoding: .utf8)
    }

    static func rss(_ items: [(guid: String, title: String)]) -> String {
        let entries = items.map {
            "<item><title>\($0.title)</title><link>https://example.org/\($0.guid)</link><guid isPermaLink=\"false\"><![CDATA[\($0.guid)]]></guid></item>"
        }
        return "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>News</title>\n"
            + entries.joined(separator: "\n") + "\n</channel></rss>\n"
    }

    static func atom(_ ids: [String]) -> String {
        "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>Blog</title>\n"
            + ids.map { "<entry><title>\($0)</title><id>urn:example:\($0)</id><link href='https://example.org/\($0)'/></entry>" }
            .joined(separator: "\n") + "\n</feed>\n"
    }

    /// FetchNow, then the result notifyd-feed completed it with.
    func fetchNow() throws -> String {
        let id: UInt64 = try fixture.call(Self.fetch, "FetchNow", [.string(Self.app)]).decode(0)
        let ended = try #require(recorder.wait(seconds: 30, forCount: 1) {
            $0.member == "FetchCompleted" && $0.arguments[1] == .uint64(id)
        }, "notifyd-feed did not complete fetch \(id): \(fixture.daemon.log)")
        guard case .string(let result) = ended[0].arguments[2] else { return "" }
        return result
    }

    @Test func newArticlesAreReportedAndTheFetchCompleted() throws {
        let old = [("a-1", "First"), ("a-2", "Second")]
        try Self.rss(old).write(to: web.appendingPathComponent("news.xml"), atomically: true, encoding: .utf8)
        try Self.atom(["x"]).write(to: web.appendingPathComponent("blog.atom"), atomically: true, encoding: .utf8)
        try writeFeeds(["# my feeds", server.url("news.xml"), "", server.url("blog.atom")])
        #expect(try fetchNow() == "no-data", "the first look counts nothing as new")

        let added = old + [("a-3", "Tom & \"Jerry\" <3"), ("a-4", "Fourth")]
        try Self.rss(added.map { ($0.0, $0.1.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")) })
            .write(to: web.appendingPathComponent("news.xml"), atomically: true, encoding: .utf8)
        try Self.atom(["x", "y"]).write(to: web.appendingPathComponent("blog.atom"), atomically: true, encoding: .utf8)
        #expect(try fetchNow() == "new-data")
        let event = try #require(recorder.received.first { $0.member == "HandleEventsForBackgroundSession" })
        #expect(event.arguments[1] == .string(Self.app))
        #expect("\(event.arguments[3])".contains("3 new articles"), "\(event.arguments)")
        let badge: UInt32 = try fixture.call("org.notifyd.Notifyd1.Badges", "GetBadge", [.string(Self.app)]).decode(0)
        #expect(badge == 3)

        #expect(try fetchNow() == "no-data", "nothing new since")
        #expect(recorder.received.filter { $0.member == "HandleEventsForBackgroundSession" }.count == 1)
    }

    @Test func aFeedThatCannotBeDownloadedFailsTheFetch() throws {
        try writeFeeds([server.url("missing.xml")])
        #expect(try fetchNow() == "failed")
        let schedule = try fixture.call(Self.fetch, "GetFetchSchedule", [.string(Self.app)])
        #expect("\(schedule)".contains("failed"))
    }
}
