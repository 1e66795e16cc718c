import Glibc

/// Reads figures of a running process from `/proc` (Linux).
enum ProcReader {
    /// The `Name: value` fields of `/proc/PID/status` (or of one thread's
    /// `/proc/PID/task/TID/status`), or nil if the file cannot be read.
    static func statusFields(_ path: String) -> [String: String]? {
        guard let text = readFile(path) else { return nil }
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            fields[String(line[..<colon])] = String(value)
        }
        return fields
    }

    /// A size such as `9876 kB` (the value of `VmRSS:`), in kilobytes.
    static func kilobytes(_ value: String?) -> Int? {
        guard let value else { return nil }
        return Int(value.split(separator: " ").first ?? "")
    }

    /// The context switches of every thread of the process, now.
    static func contextSwitches(ofProcess pid: pid_t) -> ContextSwitchSnapshot {
        var threads: [pid_t: ThreadContextSwitches] = [:]
        for name in directoryEntries("/proc/\(pid)/task") {
            guard let tid = pid_t(name), let fields = statusFields("/proc/\(pid)/task/\(name)/status") else {
                continue  // The thread ended meanwhile.
            }
            threads[tid] = ThreadContextSwitches(
                name: fields["Name"] ?? "?",
                voluntary: Int(fields["voluntary_ctxt_switches"] ?? "") ?? 0,
                nonvoluntary: Int(fields["nonvoluntary_ctxt_switches"] ?? "") ?? 0)
        }
        return ContextSwitchSnapshot(threads: threads)
    }

    /// The CPU time all threads of a process have used so far, in
    /// nanoseconds: the sum of `se.sum_exec_runtime` (milliseconds with six
    /// decimals) over `/proc/PID/task/*/sched` where the kernel has it, else
    /// `utime + stime` of `/proc/PID/stat` (whole clock ticks). Threads that
    /// already ended are not counted in the first form.
    static func cpuNanoseconds(ofProcess pid: pid_t) -> UInt64? {
        var total = 0.0
        var found = false
        for name in directoryEntries("/proc/\(pid)/task") {
            guard let text = readFile("/proc/\(pid)/task/\(name)/sched"),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("se.sum_exec_runtime") }),
                let milliseconds = line.split(separator: ":").last.flatMap({ Double($0.filter { $0 != " " }) })
            else { continue }
            total += milliseconds
            found = true
        }
        if found { return UInt64(total * 1e6) }
        // After the parenthesised command name: state is field 3, utime 14, stime 15.
        guard let text = readFile("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = UInt64(fields[11]), let system = UInt64(fields[12]) else { return nil }
        return (user + system) * 1_000_000_000 / UInt64(max(1, sysconf(Int32(_SC_CLK_TCK))))
    }

    /// The whole file; `/proc` files report no size, so read to the end.
    static func readFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes += buffer[0..<count]
            } else if count == 0 {
                return String(decoding: bytes, as: UTF8.self)
            } else if errno != EINTR {
                return nil
            }
        }
    }

    /// The names in a directory, without `.` and `..`.
    static func directoryEntries(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}

/// One thread's context-switch counters.
struct ThreadContextSwitches {
    /// The thread's name (`Name:` in its status), e.g. `notifyd` or `gmain`.
    let name: String
    /// Switches because the thread blocked (waited for I/O, a lock, a timer).
    let voluntary: Int
    /// Switches because the scheduler preempted the thread.
    let nonvoluntary: Int

    var total: Int { voluntary + nonvoluntary }
}

/// The context-switch counters of all threads of a process at one moment.
struct ContextSwitchSnapshot {
    let threads: [pid_t: ThreadContextSwitches]

    var voluntary: Int { threads.values.reduce(0) { $0 + $1.voluntary } }
    var nonvoluntary: Int { threads.values.reduce(0) { $0 + $1.nonvoluntary } }
    var total: Int { voluntary + nonvoluntary }

    /// The threads that switched between `earlier` and this snapshot, with
    /// how often (a thread born meanwhile counts from zero), busiest first.
    func threadsThatSwitched(since earlier: ContextSwitchSnapshot) -> [(tid: pid_t, name: String, switches: Int)] {
        threads.compactMap { tid, now in
            let switches = now.total - (earlier.threads[tid]?.total ?? 0)
            return switches > 0 ? (tid, now.name, switches) : nil
        }
        .sorted { $0.switches > $1.switches }
    }
}
