import NotifyCore

/// What `notifyctl browser status` finds for one browser: whether it has
/// notifyd's extension (for every user, in one of this user's profiles, or
/// not at all) and whether its host manifest is sound.
struct BrowserSetup {
    enum ExtensionState: String {
        case systemWide = "system-wide"
        case perUser = "per user"
        case absent = "no"

        var json: String { self == .perUser ? "per-user" : self == .absent ? "none" : rawValue }
    }

    let target: BrowserTarget
    let extensionState: ExtensionState
    /// The manifest the browser reads first (per user, else system-wide) and what is wrong with it.
    let host: ManifestFile.State
    let hostManifest: String?
    let hostScope: String

    init(_ target: BrowserTarget) {
        self.target = target
        extensionState =
            Self.hasSystemExtension(target) ? .systemWide : Self.profilesWithExtension(target).isEmpty ? .absent : .perUser
        // Browsers read the user's manifest first, then the system's.
        let user = target.manifestPath(system: false)
        let system = target.manifestPath(system: true)
        if let user, BrowserFiles.exists(user) {
            (host, hostManifest, hostScope) = (ManifestFile.state(user, family: target.family), user, "per user")
        } else if let system, BrowserFiles.exists(system) {
            (host, hostManifest, hostScope) = (ManifestFile.state(system, family: target.family), system, "system-wide")
        } else {
            (host, hostManifest, hostScope) = (.missing, nil, "")
        }
    }

    /// `set up (system-wide)`, `broken: WHY`, `missing`.
    var hostText: String {
        switch host {
        case .soundFor: "set up (\(hostScope))"
        case .broken(let why): "broken: \(why)"
        case .missing: "missing"
        }
    }

    /// Whether the package's copy of the extension is where this browser loads it for every user.
    static func hasSystemExtension(_ target: BrowserTarget) -> Bool {
        guard let path = target.systemExtension.map(BrowserFiles.system) else { return false }
        return BrowserFiles.exists("\(path)/manifest.json") || BrowserFiles.exists("\(path).xpi")
    }

    /// The profiles of this user in which the browser has notifyd's extension.
    static func profilesWithExtension(_ target: BrowserTarget) -> [String] {
        let root = BrowserTarget.resolved(target.profiles)
        return BrowserFiles.entries(root).map { "\(root)/\($0)" }.filter { profile in
            switch target.family {
            case .firefox:
                // extensions.json lists the profile's add-ons by ID; an
                // add-on installed from a file is also kept in extensions/.
                BrowserFiles.exists("\(profile)/extensions/\(BrowserNames.firefoxExtensionID).xpi")
                    || BrowserFiles.text("\(profile)/extensions.json")?.contains("\"id\":\"\(BrowserNames.firefoxExtensionID)\"") == true
            case .chromium:
                ["Preferences", "Secure Preferences"].contains { file in
                    BrowserFiles.text("\(profile)/\(file)")?.contains("\"\(BrowserNames.chromiumExtensionID)\":") == true
                }
            }
        }
    }

    var json: JSON {
        var members: [(key: String, value: JSON)] = [
            ("browser", .string(target.name)), ("extension", .string(extensionState.json)),
        ]
        switch host {
        case .soundFor: members += [("host", .string("set-up"))]
        case .broken(let why): members += [("host", .string("broken")), ("host_problem", .string(why))]
        case .missing: members += [("host", .string("missing"))]
        }
        members.append(("host_manifest", hostManifest.map(JSON.string) ?? .null))
        return .object(members)
    }
}
