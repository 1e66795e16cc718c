import Foundation
import NotifyTesting
import NotifyTransfer
import Synchronization
import Testing

/// The engine's tests, one at a time: the HTTPS tests set `CURL_CA_BUNDLE`
/// in this process, which the engine's thread of another test would read
/// meanwhile. Each suite below is an extension of this one.
@Suite("TransferEngine against nginx", .serialized)
struct NotifyTransferTests {}

/// A transfer engine whose events are recorded, for the tests to wait on
/// (bounded); shut down when released.
final class RecordedEngine: Sendable {
    private let log = RecordedEvents<TimedEvent>()
    let engine: TransferEngine

    /// An event and when it came (monotonic nanoseconds).
    struct TimedEvent: Sendable {
        let time: UInt64
        let event: TransferEngineEvent
    }

    init() {
        let log = self.log
        engine = TransferEngine { event in log.append(TimedEvent(time: MonotonicClock.nanoseconds(), event: event)) }
    }

    deinit { engine.shutdown() }

    var all: [TransferEngineEvent] { log.all.map(\.event) }

    /// When each progress report of `id` came, in nanoseconds.
    func progressTimes(_ id: UInt64) -> [UInt64] {
        log.all.compactMap { if case .progress(id, _, _) = $0.event { $0.time } else { nil } }
    }

    /// The first event after the first `skipping` that `match` takes, waited for.
    func wait<T>(_ what: String, seconds: Double = 30, after skipping: Int = 0, _ match: (TransferEngineEvent) -> T?) throws -> T {
        try log.wait(what, seconds: seconds, after: skipping) { match($0.event) }
    }

    /// Starts `attempt` and waits for its end.
    func run(_ attempt: TransferAttempt, seconds: Double = 30) throws -> TransferAttemptEnd {
        let count = all.count
        engine.start(attempt)
        return try ended(attempt.id, after: count, seconds: seconds)
    }

    /// The end of `id`, after the first `skipping` events, waited for.
    func ended(_ id: UInt64, after skipping: Int = 0, seconds: Double = 30) throws -> TransferAttemptEnd {
        try wait("the end of transfer \(id)", seconds: seconds, after: skipping) { event in
            if case .ended(id, let end) = event { return end }
            return nil
        }
    }

    /// The answer to `id`, after the first `skipping` events, waited for.
    func responded(_ id: UInt64, after skipping: Int = 0) throws -> (resumedFrom: UInt64, total: UInt64?, validator: String?) {
        try wait("the answer to transfer \(id)", after: skipping) { event in
            if case .responded(id, let resumedFrom, let total, let validator) = event { return (resumedFrom, total, validator) }
            return nil
        }
    }

    /// Waits until `id` reported at least `bytes` done.
    func waitForProgress(_ id: UInt64, atLeast bytes: UInt64, after skipping: Int = 0) throws {
        _ = try wait("transfer \(id) past \(bytes) bytes", after: skipping) { event in
            if case .progress(id, let done, _) = event, done >= bytes { return done }
            return nil
        }
    }
}

/// Helpers shared by the suites.
enum TransferFixture {
    /// `count` random bytes.
    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: count)
        for index in stride(from: 0, to: count, by: 8) {
            let word = generator.next()
            for offset in 0..<min(8, count - index) { bytes[index + offset] = UInt8(truncatingIfNeeded: word >> (offset * 8)) }
        }
        return bytes
    }

    /// A new empty directory, by its real path (the engine refuses a
    /// directory reached through a symbolic link, and `$TMPDIR` may be one).
    static func directory() throws -> String {
        let made = try makeTemporaryDirectory(prefix: "notifyd-transfer-test").path
        guard let real = realpath(made, nil) else { throw TestFailure("no real path for \(made)") }
        defer { free(real) }
        return String(cString: real)
    }

    /// The bytes of the file at `path`, nil when there is none.
    static func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// The SHA-256 of `bytes` in lowercase hex (by sha256sum).
    static func sha256(_ bytes: [UInt8], scratch: String) throws -> String {
        let file = scratch + "/sha256-input"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        defer { unlink(file) }
        let result = try runProcess(try requireTool("sha256sum", package: "coreutils"), [file])
        return String(result.stdout.prefix(64))
    }

    /// nginx with the locations the tests use: `/slow/` (the root at
    /// 1 MB/s), `/busy` (503 with Retry-After: 2), `/tofile` (a redirect
    /// to file:///etc/passwd), `/loop` (redirects to itself), `/named` (a
    /// Content-Disposition reaching out of the directory), `/utf8name`
    /// (`filename*` in UTF-8), `/moved` (a 302 to `/data/report.pdf`).
    static func nginx(tls: Bool = false) throws -> NginxServer {
        let server = try NginxServer(tls: tls)
        let root = server.root.path
        server.addLocations([
            "location /slow/ { alias \(root)/; limit_rate 1m; }",
            "location = /busy { add_header Retry-After 2 always; return 503; }",
            "location = /tofile { return 302 file:///etc/passwd; }",
            "location = /loop { return 302 /loop; }",
            #"location = /named { add_header Content-Disposition 'attachment; filename="../../.bashrc"'; return 200 "hello\n"; }"#,
            #"location = /utf8name { add_header Content-Disposition "attachment; filename=\"fallback.pdf\"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf"; return 200 "cv\n"; }"#,
            "location = /moved { return 302 /data/report.pdf; }",
        ])
        server.stop()
        try server.start()
        return server
    }
}
