/// The names of notifyd's browser integration (SPEC, "Browser downloads").
public enum BrowserNames {
    /// The native messaging host's name, and its manifests' file name
    /// without `.json`.
    public static let hostName = "org.notifyd.browser"
    /// The extension's ID in Firefox (`browser_specific_settings.gecko.id`).
    public static let firefoxExtensionID = "browser@notifyd.org"
    /// The extension's ID in Chromium-based browsers, fixed by the `key` of
    /// `browser/extension/manifest.json`.
    public static let chromiumExtensionID = "khdbmcmnoolejdfdmlgcgiiafanjhbkc"

    /// The two dialects of host manifest.
    public enum Family: String, Sendable {
        case firefox, chromium
    }

    /// The host manifest a browser of `family` reads, naming the host at
    /// `hostPath` (absolute) and allowing only notifyd's extension.
    public static func hostManifest(_ family: Family, hostPath: String) -> String {
        let allowed = switch family {
        case .firefox: #""allowed_extensions": ["\#(firefoxExtensionID)"]"#
        case .chromium: #""allowed_origins": ["chrome-extension://\#(chromiumExtensionID)/"]"#
        }
        return """
            {
              "name": "\(hostName)",
              "description": "notifyd: reports the browser's downloads to notifyd",
              "path": \(JSONString.quoted(hostPath)),
              "type": "stdio",
              \(allowed)
            }

            """
    }
}
