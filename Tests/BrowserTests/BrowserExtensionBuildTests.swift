import Foundation
import Testing
import NotifyTesting

/// `browser/make-extension`: one source tree, each browser's manifest.
@Suite struct BrowserExtensionBuildTests {
    func built(_ kind: HeadlessBrowser.Kind) throws -> (manifest: [String: Any], directory: URL) {
        let directory = try HeadlessBrowser.buildExtension(
            kind, into: try makeTemporaryDirectory(prefix: "notifyd-extension").appendingPathComponent(kind.family))
        let data = try Data(contentsOf: directory.appendingPathComponent("manifest.json"))
        return (try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any]), directory)
    }

    @Test func eachBrowserGetsItsOwnManifestAndTheSameScript() throws {
        let (chromium, chromiumDirectory) = try built(.chromium)
        let (firefox, firefoxDirectory) = try built(.firefox)
        for manifest in [chromium, firefox] {
            #expect(manifest["manifest_version"] as? Int == 3)
            #expect(manifest["permissions"] as? [String] == ["downloads", "nativeMessaging", "storage"])
            #expect(manifest["name"] as? String == "notifyd downloads")
        }
        #expect((chromium["background"] as? [String: Any])?.keys.sorted() == ["service_worker"])
        #expect(chromium["key"] is String && chromium["browser_specific_settings"] == nil)
        #expect((firefox["background"] as? [String: Any])?["scripts"] as? [String] == ["background.js"])
        #expect(firefox["key"] == nil)
        let gecko = (firefox["browser_specific_settings"] as? [String: Any])?["gecko"] as? [String: Any]
        #expect(gecko?["id"] as? String == HeadlessBrowser.firefoxExtensionID)
        let source = try Data(contentsOf: Executables.repositoryRoot().appendingPathComponent("browser/extension/background.js"))
        for directory in [chromiumDirectory, firefoxDirectory] {
            #expect(try Data(contentsOf: directory.appendingPathComponent("background.js")) == source)
        }
    }

    /// The manifest's `key` gives Chromium the ID the host manifests allow.
    @Test func theChromiumKeyGivesItsID() throws {
        let script = """
            import base64, hashlib, json, sys
            key = json.load(open(sys.argv[1]))["key"]
            digest = hashlib.sha256(base64.b64decode(key)).hexdigest()[:32]
            print("".join(chr(ord("a") + int(c, 16)) for c in digest))
            """
        let manifest = try built(.chromium).directory.appendingPathComponent("manifest.json")
        let result = try runProcess(try requireTool("python3", package: "python3"), ["-c", script, manifest.path])
        #expect(result.stdout == HeadlessBrowser.chromiumExtensionID + "\n", "\(result.stderr)")
    }
}
