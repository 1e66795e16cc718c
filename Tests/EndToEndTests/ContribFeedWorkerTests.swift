import Foundation
import NotifyTesting
import Testing

/// contrib/feed/notifyd-feed on its own, without notifyd: `NOTIFYCTL` is a
/// stub that records each call (one line, arguments separated by U+001F),
/// and the feeds come from a local web server. What the worker asks of
/// notifyctl is checked exactly; ContribFeedTests runs it through notifyd.
@Suite struct ContribFeedWorkerTests {
    let root: URL
    let web: URL
    let calls: URL
    let server: LocalHTTPServer
    let environment: [String: String]

    init() throws {
        root = try makeTemporaryDirectory(prefix: "notifyd-feed-worker")
        web = root.appendingPathComponent("web")
        calls = root.appendingPathComponent("calls")
        for directory in [web, root.appendingPathComponent("config/notifyd-feed")] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        _ = try requireTool("curl", package: "curl")
        let stub = root.appendingPathComponent("notifyctl-stub")
        try Self.writeScript(stub, in: root, """
            #!/bin/sh
            IFS=$(printf '\\037')
            printf '%s\\n' "$*" >> '\(calls.path)'
            """)
        environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": root.path,
            "XDG_CONFIG_HOME": root.appendingPathComponent("config").path,
            "XDG_STATE_HOME": root.appendingPathComponent("state").path, "NOTIFYCTL": stub.path,
        ]
        server = try LocalHTTPServer(serving: web, scratch: root)
    }

    /// Writes an executable script from a child shell: a write descriptor
    /// held by this (multithreaded) process could leak into a child forked
    /// meanwhile by another test and make exec fail with ETXTBSY.
    static func writeScript(_ url: URL, in directory: URL, _ text: String) throws {
        let result = try runTool("/bin/sh", ["-c", "printf '%s\\n' \"$2\" > \"$1\" && chmod 755 \"$1\"", "sh", url.path, text],
                                 environment: ["PATH": "/usr/bin:/bin"], in: directory)
        guard result.status == 0 else { throw TestFailure("cannot write \(url.path): \(result.stderr)") }
    }

    static let script = Executables.repositoryRoot().appendingPathComponent("contrib/feed/notifyd-feed").path

    /// Runs notifyd-feed as notifyd would (fetch `id`, deadline 30 s ahead),
    /// or by hand when `id` is nil; returns its result and the calls it made.
    func run(fetch id: String?, deadlineSeconds: Int = 30, extra: [String: String] = [:]) throws -> (ProcessResult, [[String]]) {
        try? FileManager.default.removeItem(at: calls)
        var environment = self.environment.merging(extra) { $1 }
        if let id {
            environment["NOTIFYD_FETCH_ID"] = id
            environment["NOTIFYD_FETCH_DEADLINE"] = String((Int(Date().timeIntervalSince1970) + deadlineSeconds) * 1_000_000)
        }
        let result = try runTool("/bin/sh", [Self.script], environment: environment, in: root, seconds: 40)
        let text = (try? String(contentsOf: calls, encoding: .utf8)) ?? ""
        return (result, text.split(separator: "\n").map { $0.split(separator: "\u{1f}", omittingEmptySubsequences: false).map(String.init) })
    }

    func serve(_ name: String, _ text: String) throws {
        try text.write(to: web.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    func writeFeeds(_ lines: [String]) throws {
        try (lines.joined(separator: "\n") + "\n")
            .write(to: root.appendingPathComponent("config/notifyd-feed/feeds"), atomically: true, encoding: .utf8)
    }

    static func rss(_ items: [String]) -> String {
        "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>News &amp; \"more\"</title><link>https://example.org/</link>\n"
            + items.joined(separator: "\n") + "\n</channel></rss>\n"
    }

    static func event(_ count: Int, session: String) -> [String] {
        ["event", "--app", "org.notifyd.Feed", "--fetch", "new-data", "--title=\(count) new articles", "--badge", "\(count)", "--", session]
    }

    @Test func firstRunStoresThenTwoNewItemsAreReported() throws {
        let old = [
            "<item><title>Tom &amp; \"Jerry\" 'ok'</title><guid isPermaLink=\"false\">tag:example.org,2024:1</guid></item>",
            "<item rdf:about=\"x\"><title><![CDATA[A & B \"quoted\" <b>]]></title><guid><![CDATA[https://example.org/?a=1&b=\"2\"]]></guid></item>",
        ]
        try serve("news.xml", Self.rss(old))
        try writeFeeds(["# my feeds", "", server.url("news.xml")])
        let (first, firstCalls) = try run(fetch: "41")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(firstCalls == [["fetch", "complete", "41", "no-data"]], "the first run counts nothing as new: \(first.stderr)")

        let added = old + [
            "<item><title>Three &lt;3</title><link>https://example.org/3?x=1&amp;y=\"2\"</link></item>",
            "<item>\n  <title>Four</title>\n  <guid>\n    four\n  </guid>\n</item>",
        ]
        try serve("news.xml", Self.rss(added))
        let (second, secondCalls) = try run(fetch: "42")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(secondCalls == [Self.event(2, session: "feed:42"), ["fetch", "complete", "42", "new-data"]], "\(second.stderr)")

        let (third, thirdCalls) = try run(fetch: "43")
        #expect(third.status == 0 && thirdCalls == [["fetch", "complete", "43", "no-data"]], "nothing new since")
    }

    @Test func anAtomFeedWorks() throws {
        func atom(_ ids: [String]) -> String {
            "<feed xmlns=\"http://www.w3.org/2005/Atom\"><id>urn:feed</id><title>Blog</title>\n"
                + ids.map { "<entry xml:lang=\"en\"><title type=\"html\">Q &amp; A</title><id>urn:example:\($0)</id><link rel=\"alternate\" href=\"https://example.org/\($0)\"/></entry>" }
                .joined(separator: "\n") + "\n</feed>\n"
        }
        try serve("blog.atom", atom(["a"]))
        try writeFeeds([server.url("blog.atom")])
        #expect(try run(fetch: "7").1 == [["fetch", "complete", "7", "no-data"]])
        try serve("blog.atom", atom(["a", "b", "c", "d"]))
        let (result, calls) = try run(fetch: "8")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(calls == [Self.event(3, session: "feed:8"), ["fetch", "complete", "8", "new-data"]], "\(result.stderr)")
    }

    /// What the server answered each GET of `path` ("200", "304"), in order
    /// (its request log, written before it sends the body).
    func answers(to path: String) -> [String] {
        let log = (try? String(contentsOf: root.appendingPathComponent("http.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "\"GET /\(path) HTTP/1.1\" ") else { return nil }
            return String(line[range.upperBound...].prefix(3))
        }
    }

    /// A feed whose server gives an ETag is asked for with If-None-Match:
    /// unchanged, it is answered 304 and counts nothing; changed, it is
    /// downloaded and its new items counted. One without an ETag is
    /// downloaded whole every time.
    @Test func anUnchangedFeedIsAnsweredNotModified() throws {
        try serve("news.xml", Self.rss(["<item><guid>1</guid></item>"]))
        try serve("plain.xml", Self.rss(["<item><guid>p1</guid></item>"]))
        try writeFeeds([server.url("news.xml"), server.url("plain.xml?plain")])
        #expect(try run(fetch: "20").1 == [["fetch", "complete", "20", "no-data"]])
        #expect(try run(fetch: "21").1 == [["fetch", "complete", "21", "no-data"]])
        #expect(answers(to: "news.xml") == ["200", "304"])
        #expect(answers(to: "plain.xml?plain") == ["200", "200"])

        try serve("news.xml", Self.rss(["<item><guid>1</guid></item>", "<item><guid>2</guid></item>", "<item><guid>3</guid></item>"]))
        let (result, calls) = try run(fetch: "22")
        #expect(calls == [Self.event(2, session: "feed:22"), ["fetch", "complete", "22", "new-data"]], "\(result.stderr)")
        #expect(try run(fetch: "23").1 == [["fetch", "complete", "23", "no-data"]])
        #expect(answers(to: "news.xml") == ["200", "304", "200", "304"], "the new version's ETag is kept")
    }

    @Test func anUnreachableFeedFailsTheFetch() throws {
        // A port nothing listens on, and a file the server does not have.
        try writeFeeds(["http://127.0.0.1:\(try freeLoopbackPort())/feed.xml", server.url("missing.xml")])
        let (result, calls) = try run(fetch: "9")
        #expect(result.status == 1)
        #expect(calls == [["fetch", "complete", "9", "failed"]], "\(result.stderr)")
        #expect(result.stderr.contains("cannot download"), "\(result.stderr)")
    }

    @Test func oneFeedDownloadedIsNotAFailure() throws {
        try serve("news.xml", Self.rss(["<item><guid>1</guid></item>"]))
        try writeFeeds([server.url("missing.xml"), server.url("news.xml")])
        #expect(try run(fetch: "10").1 == [["fetch", "complete", "10", "no-data"]])
    }

    @Test func noTimeLeftBeforeTheDeadlineFailsWithoutDownloading() throws {
        try serve("news.xml", Self.rss(["<item><guid>1</guid></item>"]))
        try writeFeeds([server.url("news.xml")])
        let (result, calls) = try run(fetch: "11", deadlineSeconds: 2)
        #expect(calls == [["fetch", "complete", "11", "failed"]], "\(result.stderr)")
    }

    @Test func byHandItReportsButCompletesNothing() throws {
        try serve("news.xml", Self.rss(["<item><guid>1</guid></item>"]))
        try writeFeeds([server.url("news.xml")])
        _ = try run(fetch: nil)
        try serve("news.xml", Self.rss(["<item><guid>1</guid></item>", "<item><guid>2</guid></item>"]))
        let (result, calls) = try run(fetch: nil)
        #expect(result.status == 0, "\(result.stderr)")
        // One event, session feed:PID-TIME, and no `fetch complete`.
        let expected = ["event", "--app", "org.notifyd.Feed", "--fetch", "new-data", "--title=1 new article", "--badge", "1", "--"]
        #expect(calls.count == 1 && Array(calls[0].dropLast()) == expected, "\(calls)")
        #expect(calls.first?.last?.hasPrefix("feed:") == true, "\(calls)")
    }

    @Test func aMissingNotifydIsOneWarningLine() throws {
        try serve("news.xml", Self.rss(["<item><guid>1</guid></item>"]))
        try writeFeeds([server.url("news.xml")])
        _ = try run(fetch: nil)
        try serve("news.xml", Self.rss(["<item><guid>1</guid></item>", "<item><guid>2</guid></item>"]))
        let absent = root.appendingPathComponent("absent-notifyctl")
        try Self.writeScript(absent, in: root, "#!/bin/sh\necho 'notifyctl: notifyd is not running' >&2\nexit 3")
        let (result, _) = try run(fetch: "12", extra: ["NOTIFYCTL": absent.path])
        #expect(result.status == 0)
        #expect(result.stderr == "notifyd-feed: warning: notifyd was not told: notifyctl: notifyd is not running\n")
    }
}
