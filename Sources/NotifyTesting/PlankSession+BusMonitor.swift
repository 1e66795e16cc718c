import Foundation
import Glibc

extension PlankSession {
    /// `dbus-monitor` on a bus (it becomes a monitor with
    /// `org.freedesktop.DBus.Monitoring.BecomeMonitor`): what really
    /// went over the bus for `rules`, including method calls to others.
    public final class BusMonitor: @unchecked Sendable {
        /// One message as dbus-monitor prints it: a header line and its arguments.
        public struct Message: Sendable {
            public var header: String
            public var body: String
            public var member: String {
                header.components(separatedBy: " member=").last?.split(separator: " ").first.map(String.init) ?? ""
            }
            public var isMethodCall: Bool { header.hasPrefix("method call ") }
            public var isSignal: Bool { header.hasPrefix("signal ") }
        }

        private let process: SpawnedProcess
        private let output: URL

        /// Starts the monitor and waits (bounded) until the bus made it one.
        public init(busAddress: String, rules: [String], output: URL) throws {
            self.output = output
            let fd = open(output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            guard fd >= 0 else { throw TestFailure("cannot create \(output.path)") }
            defer { close(fd) }
            process = try SpawnedProcess(
                "/usr/bin/stdbuf", ["-oL", "/usr/bin/dbus-monitor", "--address", busAddress] + rules,
                environment: ProcessInfo.processInfo.environment, stdoutFD: fd, stderrFD: fd)
            // Having become a monitor, dbus-monitor loses its unique name and prints that.
            try waitUntil("dbus-monitor becomes a monitor", seconds: 10) { text.contains("member=NameLost") }
        }

        deinit {
            process.kill(SIGTERM)
        }

        public var text: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

        /// Every message printed so far.
        public var messages: [Message] {
            var result: [Message] = []
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if let first = line.first, first != " " {
                    result.append(Message(header: String(line), body: ""))
                } else if !result.isEmpty {
                    result[result.count - 1].body += line + "\n"
                }
            }
            return result
        }
    }
}
