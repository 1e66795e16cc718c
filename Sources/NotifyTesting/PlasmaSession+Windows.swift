import Foundation

/// Plasma's notification popups as windows of their own. Without a
/// compositor (as here) a screenshot of the whole screen catches a popup
/// half drawn: its own window, captured by ID, has it whole.
extension PlasmaSession {
    /// A window on the display: its ID and where it is.
    public struct Window: Sendable, Hashable {
        public var id: String
        public var x: Int
        public var y: Int
        public var width: Int
        public var height: Int
    }

    /// plasmashell's windows of type `_NET_WM_WINDOW_TYPE_NOTIFICATION`
    /// that are on screen.
    public func notificationPopups() throws -> [Window] {
        let environment = ["DISPLAY": display, "PATH": "/usr/bin:/bin"]
        let tree = try runProcess("/usr/bin/xwininfo", ["-root", "-tree"], environment: environment).stdout
        var popups: [Window] = []
        for line in tree.split(separator: "\n") where line.contains("(\"plasmashell\" \"plasmashell\")") {
            // `     0x600048 "Plasma": ("plasmashell" "plasmashell")  336x104+0+0  +908+616`
            let fields = line.split(separator: " ")
            guard let id = fields.first(where: { $0.hasPrefix("0x") }), let size = fields.dropLast().last,
                let position = fields.last, position.hasPrefix("+")
            else { continue }
            let dimensions = size.split(separator: "+").first?.split(separator: "x").compactMap { Int($0) } ?? []
            let origin = position.split(separator: "+").compactMap { Int($0) }
            guard dimensions.count == 2, origin.count == 2, dimensions[0] > 1, dimensions[1] > 1 else { continue }
            let type = try runProcess("/usr/bin/xprop", ["-id", String(id), "_NET_WM_WINDOW_TYPE"], environment: environment)
            guard type.stdout.contains("_NET_WM_WINDOW_TYPE_NOTIFICATION") else { continue }
            popups.append(Window(id: String(id), x: origin[0], y: origin[1], width: dimensions[0], height: dimensions[1]))
        }
        return popups
    }

    /// A window's own pixels as a PNG (`import -window ID`). Bounded: on
    /// a window that closes meanwhile (a popup whose time ran out), `import`
    /// waits for ever, which would hold the whole suite.
    public func capture(_ window: Window, to file: URL) throws {
        let result = try runProcess(
            "/usr/bin/timeout", ["20", "/usr/bin/import", "-display", display, "-window", window.id, file.path],
            environment: ["DISPLAY": display, "PATH": "/usr/bin:/bin"])
        guard result.status == 0 else {
            throw TestFailure("import -window \(window.id) (exit \(result.status): 124 is a window gone meanwhile): \(result.stderr)")
        }
    }
}
