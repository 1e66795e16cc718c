/// The sound a notification asks for.
public enum SoundRequest: Sendable, Hashable {
    /// A name of the freedesktop Sound Naming Spec, e.g. `complete-download`.
    case named(String)
    /// An absolute path of a sound file.
    case file(String)
    /// No sound at all (the event's `sound` was `""`).
    case silent

    /// The request for an event's `sound` key: `""` is silent, a value
    /// starting with `/` a file, anything else a sound name.
    public init(eventSound sound: String) {
        if sound.isEmpty {
            self = .silent
        } else if sound.hasPrefix("/") {
            self = .file(sound)
        } else {
            self = .named(sound)
        }
    }
}

/// What the desktop notification of one event says (SPEC "Notifications"),
/// before the desktop layer adds the app's name, icon and actions.
public struct NotificationContent: Sendable, Hashable {
    /// The first line, e.g. `Download complete`.
    public var summary: String
    /// The text under it; may be empty.
    public var body: String
    /// The notification category: `transfer.complete`, `transfer.error` or none.
    public var category: String?
    /// The sound to play with it.
    public var sound: SoundRequest
    /// The event's `path`; an `Open` action is offered when set.
    public var openPath: String?

    /// Content with every part given; ``forEvent(_:)`` derives it from an event.
    public init(summary: String, body: String, category: String?, sound: SoundRequest, openPath: String?) {
        self.summary = summary
        self.body = body
        self.category = category
        self.sound = sound
        self.openPath = openPath
    }

    /// The notification an event posts, or `nil` when it posts nothing: a
    /// `progress` event, a `fetch` with `no-data` or `failed`, or any event
    /// with `notify` false.
    ///
    /// | kind | summary | body | category | sound |
    /// |---|---|---|---|---|
    /// | finished | Download complete | title | transfer.complete | complete-download |
    /// | failed | Download failed | title and error, one per line, whichever exist | transfer.error | dialog-error |
    /// | fetch new-data | New content | title | none | message-new-instant |
    ///
    /// The event's `summary`, `body` and `sound` keys override the defaults.
    public static func forEvent(_ event: WorkerEvent) -> NotificationContent? {
        guard event.notify else { return nil }
        let summary: String
        let body: String
        let category: String?
        let defaultSound: String
        switch event.kind {
        case .progress:
            return nil
        case .fetch:
            guard (event.result ?? .newData) == .newData else { return nil }
            (summary, body, category, defaultSound) = ("New content", event.title ?? "", nil, "message-new-instant")
        case .finished:
            (summary, body, category, defaultSound) =
                ("Download complete", event.title ?? "", "transfer.complete", "complete-download")
        case .failed:
            let lines = [event.title, event.error].compactMap { $0 }.filter { !$0.isEmpty }
            (summary, body, category, defaultSound) =
                ("Download failed", lines.joined(separator: "\n"), "transfer.error", "dialog-error")
        }
        return NotificationContent(
            summary: event.summary ?? summary,
            body: event.body ?? body,
            category: category,
            sound: event.sound.map(SoundRequest.init(eventSound:)) ?? .named(defaultSound),
            openPath: event.path)
    }
}
