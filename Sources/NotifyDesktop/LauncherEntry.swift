public import DBus
public import NotifyCore

/// One app's Unity LauncherEntry state: what docks show on its icon.
public struct LauncherEntry: Hashable, Sendable {
    public var count: UInt32 = 0
    /// Progress of the app's running sessions, 0 to 1, when any.
    public var progress: Double?

    public init(count: UInt32 = 0, progress: Double? = nil) {
        self.count = count
        self.progress = progress
    }

    /// The entry the core decided (``NotifyCore/DockEntry``), as it is sent.
    public init(_ entry: DockEntry) {
        self.init(count: entry.count, progress: entry.progress)
    }

    /// Whether docks show anything for the app.
    public var isVisible: Bool { count > 0 || progress != nil }

    /// The `a{sv}` of `com.canonical.Unity.LauncherEntry.Update`.
    public var properties: DBusValue {
        var values: [String: DBusValue] = [
            "count": .int64(Int64(count)),
            "count-visible": .boolean(count > 0),
        ]
        values["progress"] = .double(progress ?? 0)
        values["progress-visible"] = .boolean(progress != nil)
        return .vardict(values)
    }

    /// `application://APP_ID.desktop`
    public static func appURI(_ app: AppID) -> String { "application://\(app.rawValue).desktop" }

    /// The object path libunity uses: a hash of the app URI, so any dock's
    /// path expectations are met.
    public static func objectPath(_ app: AppID) -> String {
        var hash: UInt32 = 5381
        for byte in appURI(app).utf8 { hash = hash &* 33 &+ UInt32(byte) }
        return "/com/canonical/unity/launcherentry/\(hash)"
    }

    static let interfaceName = "com.canonical.Unity.LauncherEntry"
}
