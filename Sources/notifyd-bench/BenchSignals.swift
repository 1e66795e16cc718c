import Glibc
import NotifyTestingCore

/// What the benchmark does when a signal stops it (`timeout`, `kill`, a
/// closed terminal, Ctrl-C): its sections' `defer`s never run then, so the
/// buses, notifyds and Prosody it started would run on with nobody to stop
/// them. The handler sends each child still running SIGTERM
/// (``LiveChildren``), then lets the signal end the benchmark as it would
/// have. The scratch directories (`notifyd-bench.*` and Prosody's
/// `notifyd-prosody.*` under `$TMPDIR`) stay behind: removing files is not
/// safe in a signal handler.
enum BenchSignals {
    static let stopping: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Installs the handler for SIGINT, SIGTERM and SIGHUP.
    static func stopChildrenWhenStopped() {
        LiveChildren.prepare()
        for number in stopping {
            _ = signal(number) { number in
                LiveChildren.terminateAll()
                _ = signal(number, SIG_DFL)
                _ = raise(number)
            }
        }
    }
}
