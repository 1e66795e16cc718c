import Testing

@testable import BrowserBridge

@Suite struct BrowserIdentityTests {
    @Test(arguments: [
        ("/usr/lib/chromium/chromium", ["chrome-extension://abc/"], "chromium"),
        ("/opt/google/chrome/chrome", ["chrome-extension://abc/"], "google-chrome"),
        ("/opt/brave.com/brave/brave", ["chrome-extension://abc/"], "brave-browser"),
        ("/usr/lib/firefox-esr/firefox-esr", ["/usr/lib/mozilla/native-messaging-hosts/org.notifyd.browser.json", "browser@notifyd.org"], "firefox-esr"),
        ("/usr/lib/firefox/firefox", ["/x.json", "browser@notifyd.org"], "firefox"),
        ("/usr/bin/python3", ["chrome-extension://abc/"], "chromium"),
        ("/usr/bin/python3", ["/x.json", "browser@notifyd.org"], "firefox"),
    ])
    func theBrowserIsNamedByItsExecutableThenByItsArguments(_ executable: String, _ arguments: [String], _ app: String) {
        let identity = BrowserIdentity.resolve(
            arguments: arguments, parentExecutable: executable, parentArguments: [], override: nil)
        #expect(identity.app == app)
        #expect(identity.profile == "default")
    }

    @Test func anOverrideWinsWhenItIsAnAppID() {
        let named = BrowserIdentity.resolve(
            arguments: [], parentExecutable: "/usr/bin/flatpak-spawn", parentArguments: [], override: "org.mozilla.firefox")
        #expect(named.app == "org.mozilla.firefox")
        let bad = BrowserIdentity.resolve(
            arguments: [], parentExecutable: "/usr/lib/chromium/chromium", parentArguments: [], override: "not an id")
        #expect(bad.app == "chromium")
    }

    @Test func profilesGetStableDistinctKeys() {
        let one = BrowserIdentity.profileKey(["chromium", "--user-data-dir=/tmp/a"])
        let two = BrowserIdentity.profileKey(["chromium", "--user-data-dir=/tmp/b"])
        let firefox = BrowserIdentity.profileKey(["firefox-esr", "--profile", "/tmp/a"])
        #expect(one != two)
        #expect(one != firefox)
        #expect(one == BrowserIdentity.profileKey(["chromium", "--user-data-dir=/tmp/a"]))
        #expect(one.count == 16)
        #expect(BrowserIdentity.profileKey(["chromium"]) == "default")
    }
}
