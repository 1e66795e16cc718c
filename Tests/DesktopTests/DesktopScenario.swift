/// The scenarios of the desktop suite: one column each in docs/DESKTOPS.md.
enum DesktopScenario: String, CaseIterable, Sendable, Hashable {
    case finished, failed, progress, flood, restart, hostileTitles, sound

    /// The column title.
    var title: String {
        switch self {
        case .finished: "finished"
        case .failed: "failed"
        case .progress: "progress"
        case .flood: "flood of 10"
        case .restart: "server restart"
        case .hostileTitles: "hostile titles"
        case .sound: "sound"
        }
    }

    /// What the scenario checks, for the document's legend.
    var legend: String {
        switch self {
        case .finished:
            "a finished download with a path: `Download complete`, the title as body, `desktop-entry` and "
                + "`category` hints, the actions `default` and `open` (`Open`) when the server lists `actions`"
        case .failed: "a failed download: `Download failed`, body `title` and the error on its own line, `transfer.error`"
        case .progress:
            "progress events: one transient notification with the `value` hint (body `25%`), updated in place, "
                + "on servers that draw it; none elsewhere"
        case .flood:
            "10 downloads at once from 10 short-lived `notifyctl` processes: three popups, then one summary "
                + "`10 downloads complete` whose list (newest first, at most 5, then `and K more`) adds up to its number"
        case .restart:
            "the server stops, a download finishes, the server starts again: the held popup arrives, with its actions"
        case .hostileTitles:
            "titles with `<`, `>`, `&`, quotes and a link: escaped in the body when the server reads markup, "
                + "shown exactly as written"
        case .sound:
            "the sound hints sent and the `sound-backend` notifyd reports: `server` only where the server really plays it"
        }
    }
}

/// A known limitation of a server in a scenario and what notifyd does about
/// it: the scenario's cell in the server's row.
struct ServerLimitation: Sendable, Hashable {
    var server: String
    var notifyd: String

    var cell: String { "server limitation: \(server); notifyd \(notifyd)" }
}
