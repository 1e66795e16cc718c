import DBus
import Foundation

/// What GNOME Shell shows, read through `org.gnome.Shell.Eval` (unsafe
/// mode): the message tray, Dash to Dock's model, and clicks as the shell's
/// own banner does them.
extension GnomeShellSession {
    /// A notification in the message tray (from D-Bus, not the shell's own).
    public struct TrayNotification: Sendable, Hashable {
        public var id: UInt32
        /// The source's title: the app's name from its desktop file.
        public var source: String
        public var title: String
        public var body: String
        /// Labels of the buttons (the default action is the banner itself).
        public var actions: [String]
    }

    /// Evaluates JavaScript in the shell; returns its result as JSON text.
    public func evaluate(_ script: String) throws -> String {
        let reply = try client.call(
            destination: "org.gnome.Shell", path: "/org/gnome/Shell", interface: "org.gnome.Shell", member: "Eval",
            [.string(script)])
        let succeeded: Bool = try reply.decode(0)
        let result: String = try reply.decode(1)
        guard succeeded else { throw TestFailure("org.gnome.Shell.Eval failed: \(result)") }
        return result
    }

    func evaluateJSON(_ script: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(try evaluate(script).utf8), options: [.fragmentsAllowed])
    }

    /// Waits until the shell has started up, then drops its own notices
    /// (e.g. "Logged in as a privileged user"), which come from no D-Bus client.
    func settle() throws {
        try waitUntil("GNOME Shell has started up", seconds: 30) {
            let started = try self.evaluate("!Main.layoutManager._startingUp")
            return started == "true"
        }
        _ = try evaluate(
            "Main.messageTray.getSources().filter(s => s.initialTitle === undefined).forEach(s => s.destroy()); true")
    }

    /// Every notification from a D-Bus client in the message tray.
    public func tray() throws -> [TrayNotification] {
        let script = """
            (() => {
              const byObject = new Map(Object.entries(Main.notificationDaemon._fdoNotificationDaemon._notifications)
                .map(([id, entry]) => [entry.notification, Number(id)]));
              return Main.messageTray.getSources().filter(s => s.initialTitle !== undefined).flatMap(s =>
                s.notifications.map(n => ({ id: byObject.get(n) ?? 0, source: s.title, title: n.title,
                  body: n.bannerBodyText ?? '', actions: n.actions.map(a => a.label) })));
            })()
            """
        guard let rows = try evaluateJSON(script) as? [[String: Any]] else { return [] }
        return rows.map {
            TrayNotification(
                id: UInt32(($0["id"] as? Int) ?? 0), source: $0["source"] as? String ?? "",
                title: $0["title"] as? String ?? "", body: $0["body"] as? String ?? "",
                actions: $0["actions"] as? [String] ?? [])
        }
    }

    /// Dash to Dock's entry for a pinned app: `count`, `count-visible`,
    /// `progress`, `progress-visible` as LauncherEntry gave them.
    public func dockEntry(_ app: String) throws -> [String: Any] {
        let script = """
            (() => {
              const e = Main.extensionManager.lookup('\(Self.dashToDock)').stateObj.dockManager.remoteModel
                .lookupById('\(app).desktop');
              return { count: e.count, 'count-visible': e['count-visible'], progress: e.progress,
                       'progress-visible': e['progress-visible'] };
            })()
            """
        return try evaluateJSON(script) as? [String: Any] ?? [:]
    }

    /// Clicks a notification as a person would: the banner itself (the
    /// default action) when `button` is nil, else the button with that label.
    public func click(notification id: UInt32, button: String? = nil) throws {
        let action =
            if let button {
                """
                const a = n.actions.find(a => a.label === \(Self.jsString(button)));
                if (!a) throw new Error('no button ' + \(Self.jsString(button)));
                a.callback(); if (!n.resident) n.destroy();
                """
            } else {
                "n.activate();"
            }
        _ = try evaluate(
            """
            (() => {
              const entry = Main.notificationDaemon._fdoNotificationDaemon._notifications[\(id)];
              if (!entry || !entry.notification) throw new Error('no notification \(id)');
              const n = entry.notification;
              \(action)
              return true;
            })()
            """)
    }

    /// The title and body of the banner on screen now, if any.
    public func banner() throws -> (title: String, body: String)? {
        let script = """
            (() => { const b = Main.messageTray._banner;
              return b ? [b.notification.title, b.notification.bannerBodyText ?? ''] : null; })()
            """
        guard let pair = try evaluateJSON(script) as? [String], pair.count == 2 else { return nil }
        return (pair[0], pair[1])
    }

    /// The screen as a PNG (`org.gnome.Shell.Screenshot`).
    public func screenshot(to file: URL) throws {
        let reply = try client.call(
            destination: "org.gnome.Shell.Screenshot", path: "/org/gnome/Shell/Screenshot",
            interface: "org.gnome.Shell.Screenshot", member: "Screenshot",
            [.boolean(false), .boolean(false), .string(file.path)])
        guard try reply.decode(0, as: Bool.self) else { throw TestFailure("GNOME Shell took no screenshot") }
    }

    /// Where Dash to Dock draws a pinned app's icon: x, y, width, height.
    public func dockIcon(_ app: String) throws -> (x: Int, y: Int, width: Int, height: Int) {
        let script = """
            (() => {
              const dock = Main.extensionManager.lookup('\(Self.dashToDock)').stateObj.dockManager._allDocks[0];
              const item = dock.dash._box.get_children().find(c => c.child && c.child.app
                && c.child.app.get_id() === '\(app).desktop');
              const [x, y] = item.get_transformed_position(); const [w, h] = item.get_transformed_size();
              return [Math.round(x), Math.round(y), Math.round(w), Math.round(h)];
            })()
            """
        guard let box = try evaluateJSON(script) as? [Int], box.count == 4 else {
            throw TestFailure("Dash to Dock shows no icon for \(app)")
        }
        return (box[0], box[1], box[2], box[3])
    }

    /// The app behind Dash to Dock's icon for a pinned app, as the shell
    /// resolved it: the desktop file it read, its `Icon=` and its name.
    public func dockApp(_ app: String) throws -> (desktopFile: String, icon: String, name: String) {
        let script = """
            (() => {
              const dock = Main.extensionManager.lookup('\(Self.dashToDock)').stateObj.dockManager._allDocks[0];
              const item = dock.dash._box.get_children().find(c => c.child && c.child.app
                && c.child.app.get_id() === \(Self.jsString("\(app).desktop")));
              if (!item) return null;
              const info = item.child.app.get_app_info();
              const icon = info ? info.get_icon() : null;
              return [info ? info.get_filename() : '', icon ? icon.to_string() : '', item.child.app.get_name()];
            })()
            """
        guard let row = try evaluateJSON(script) as? [String], row.count == 3 else {
            throw TestFailure("Dash to Dock shows no icon for \(app)")
        }
        return (row[0], row[1], row[2])
    }

    static func jsString(_ text: String) -> String {
        let data = try? JSONSerialization.data(withJSONObject: [text])
        let array = data.map { String(decoding: $0, as: UTF8.self) } ?? "[\"\"]"
        return String(array.dropFirst().dropLast())
    }
}
