import Foundation
import NotifyTesting

/// A notifyctl process whose output is read while it runs.
final class OutputProcess {
    private let process = Process()
    private let outputURL: URL
    private let errorURL: URL

    init(_ executable: String, _ arguments: [String], _ environment: [String: String]) throws {
        let directory = try makeTemporaryDirectory(prefix: "notifyctl-out")
        outputURL = directory.appendingPathComponent("stdout")
        errorURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: outputURL.deletingLastPathComponent())
    }

    var output: String { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "" }
    var errors: String { (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "" }
    var isRunning: Bool { process.isRunning }

    /// Waits (bounded) until the output satisfies `predicate`.
    func waitForOutput(seconds: Double = 10, _ predicate: (String) -> Bool) -> Bool {
        (try? waitUntil("notifyctl's output", seconds: seconds) { predicate(output) }) != nil
    }

    /// Waits (bounded) for the end; the exit status, or -1 when it did not end.
    func finish() -> Int32 {
        try? waitUntil("notifyctl exits", seconds: 10) { !process.isRunning }
        guard !process.isRunning else { return -1 }
        return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
    }

    /// Sends SIGTERM and waits for the end.
    func terminate() -> Int32 {
        kill(process.processIdentifier, SIGTERM)
        return finish()
    }

    /// Sends SIGINT (Ctrl-C) and waits for the end.
    func interrupt() -> Int32 {
        kill(process.processIdentifier, SIGINT)
        return finish()
    }
}