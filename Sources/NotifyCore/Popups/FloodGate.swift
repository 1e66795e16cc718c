/// What to do with the popup of one notifying event.
public enum FloodDecision: Sendable, Hashable {
    /// Post the event's own popup.
    case single
    /// Create or update in place the app's summary notification instead.
    case merged(MergedSummary)
}

/// The summary notification that stands for a flood of one app's events.
public struct MergedSummary: Sendable, Hashable {
    /// Identifies the summary notification: every burst gets a new number,
    /// so the caller replaces the notification of the same burst and posts a
    /// new one for a new burst.
    public var burst: UInt64
    /// Popups merged into it so far (the burst's events after the third).
    public var merged: Int
    /// E.g. `12 downloads complete`: every event of the burst, the three
    /// shown on their own first included.
    public var summary: String
    /// The titles of the burst's newest events, newest first, at most
    /// ``FloodGate/bodyLines`` lines, then `and K more` for the rest of
    /// the events the summary counts: the lines and K add up to its number.
    public var body: String

    /// A summary with every part given; ``FloodGate`` makes them.
    public init(burst: UInt64, merged: Int, summary: String, body: String) {
        self.burst = burst
        self.merged = merged
        self.summary = summary
        self.body = body
    }
}

/// Merges floods of popups (SPEC "Floods"): when more than three notifying
/// events of one app arrive within two seconds, the popups after the third
/// become one summary notification updated in place.
///
/// Feed it only events that would post a popup; badges and handlers are not
/// its business. A burst lasts while the app's events keep arriving less
/// than ``window`` apart; the first event after a longer gap starts afresh.
/// State is kept only for apps seen within the last ``window``.
public struct FloodGate: Sendable, Hashable {
    /// How close together events must be to count as a flood.
    public static let window: Microseconds = 2_000_000
    /// Popups an app may post within ``window`` before the rest are merged.
    public static let popupsBeforeMerging = 3
    /// Titles listed in a summary's body.
    public static let bodyLines = 5

    private var apps: [AppID: AppFlood] = [:]
    private var lastBurst: UInt64 = 0
    private var appsBeforePruning = 64

    /// A gate that has seen no event.
    public init() {}

    /// Decides whether the popup of an event of `app` arriving at `now` is
    /// posted on its own or merged into the app's summary notification.
    public mutating func admit(app: AppID, kind: EventKind, title: String?, at now: Microseconds) -> FloodDecision {
        if apps.count >= appsBeforePruning {
            prune(at: now)
            appsBeforePruning = max(64, apps.count * 2)
        }
        var flood = apps[app] ?? AppFlood(lastEvent: now)
        if now - flood.lastEvent >= Self.window { flood = AppFlood(lastEvent: now) }
        flood.lastEvent = now
        defer { apps[app] = flood }

        if flood.burst == nil {
            flood.recent.removeAll { now - $0.at >= Self.window }
            guard flood.recent.count >= Self.popupsBeforeMerging else {
                flood.recent.append(RecentPopup(at: now, kind: kind, title: title))
                return .single
            }
            lastBurst += 1
            flood.burst = Burst(id: lastBurst, singles: flood.recent)
            flood.recent = []
        }
        flood.burst!.add(kind: kind, title: title)
        return .merged(flood.burst!.summary)
    }

    /// Forgets every app with no event in the last ``window``; such an app's
    /// next event starts afresh anyway.
    public mutating func prune(at now: Microseconds) {
        apps = apps.filter { now - $0.value.lastEvent < Self.window }
    }

    /// How many apps the gate keeps state for.
    public var trackedAppCount: Int { apps.count }
}

/// The recent popups of one app, and its burst when it is flooding.
private struct AppFlood: Hashable {
    /// Single popups within the window, oldest first; at most three.
    var recent: [RecentPopup] = []
    var lastEvent: Microseconds
    var burst: Burst?
}

private struct RecentPopup: Hashable {
    var at: Microseconds
    var kind: EventKind
    var title: String?
}

private struct Burst: Hashable {
    let id: UInt64
    /// Every event of the burst, the single popups before the merging included.
    var events: Int
    var merged = 0
    var kinds: Set<EventKind>
    /// Titles of the burst's newest events, newest first, at most
    /// ``FloodGate/bodyLines``.
    var titles: [String] = []

    init(id: UInt64, singles: [RecentPopup]) {
        self.id = id
        self.events = singles.count
        self.kinds = Set(singles.map(\.kind))
        for single in singles { remember(single.title) }
    }

    mutating func add(kind: EventKind, title: String?) {
        events += 1
        merged += 1
        kinds.insert(kind)
        remember(title)
    }

    private mutating func remember(_ title: String?) {
        guard let title, !title.isEmpty else { return }
        titles.insert(title, at: 0)
        if titles.count > FloodGate.bodyLines { titles.removeLast() }
    }

    var summary: MergedSummary {
        let what =
            switch kinds {
            case [.finished]: "downloads complete"
            case [.failed]: "downloads failed"
            case [.fetch]: "updates with new content"
            default: "transfers finished"
            }
        var lines = titles
        if !lines.isEmpty, events > lines.count { lines.append("and \(events - lines.count) more") }
        return MergedSummary(
            burst: id, merged: merged, summary: "\(events) \(what)", body: lines.joined(separator: "\n"))
    }
}
