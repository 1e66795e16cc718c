import Foundation
import NotifyTesting
import NotifyTestingCore
import Testing

/// `notifyd-bench` stopped by a signal, as `timeout` or a closed terminal
/// stops it: the buses, notifyds and Prosody it started end with it
/// instead of running on with nobody to stop them.
@Suite struct BenchSignalTests {
    @Test func aBenchmarkStoppedBySIGTERMLeavesNoChildRunning() throws {
        let bench = try SpawnedProcess(
            Executables.directory.appendingPathComponent("notifyd-bench").path,
            ["--only", "push", "--pushes", "100000"], environment: ProcessInfo.processInfo.environment,
            standardOutput: .nullDevice, standardError: .nullDevice)
        var children: [Int32] = []
        var commands: [String] = []
        // The push section's notifyd and Prosody run: the section is under way.
        try waitUntil("the benchmark's push section started", seconds: 60) {
            children = Self.children(of: bench.pid)
            commands = children.map { ProcReader.readFile("/proc/\($0)/cmdline") ?? "" }
            return commands.contains { $0.contains("/push/state") } && commands.contains { $0.contains("prosody") }
        }
        #expect(children.count >= 5, "two buses, two notifyds and Prosody: \(children)")
        let ended = bench.kill(SIGTERM)
        #expect(ended == .signaled(SIGTERM), "the signal still ends the benchmark")
        try waitUntil("every child of the benchmark ended", seconds: 15) {
            children.allSatisfy { !Self.isRunning($0) }
        }
        #expect(children.filter(Self.isRunning).isEmpty)
        // What a signal leaves behind: the scratch directories, named in
        // the children's command lines (the buses' and Prosody's configuration).
        for directory in Set(commands.flatMap(Self.scratchDirectories)) {
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// The benchmark's scratch directories an argument of `command` is in.
    private static func scratchDirectories(_ command: String) -> [String] {
        command.split(separator: "\0").compactMap { argument in
            // `--config-file=/tmp/...` as well as `/tmp/...`.
            guard let slash = argument.firstIndex(of: "/") else { return nil }
            let parts = argument[slash...].split(separator: "/", omittingEmptySubsequences: false)
            guard let index = parts.firstIndex(where: { $0.hasPrefix("notifyd-bench.") || $0.hasPrefix("notifyd-prosody.") })
            else { return nil }
            return parts[...index].joined(separator: "/")
        }
    }

    /// The children of every thread of `pid` (`/proc/PID/task/TID/children`).
    private static func children(of pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task in
            (ProcReader.readFile("/proc/\(pid)/task/\(task)/children") ?? "").split(separator: " ").compactMap {
                Int32($0)
            }
        }
    }

    /// Whether `pid` is a process that has not ended (gone, or a zombie
    /// nobody reaped yet, is ended).
    private static func isRunning(_ pid: Int32) -> Bool {
        guard let stat = ProcReader.readFile("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else {
            return false
        }
        let state = stat[stat.index(close, offsetBy: 2)...].first
        return state != "Z" && state != "X"
    }
}
