import NotifyCore
import Testing

/// The servers of docs/DESKTOPS.md, as they describe themselves.
@Suite struct NotificationServerProfileTests {
    static let dunst = NotificationServerProfile(
        name: "dunst", vendor: "knopwob", version: "1.9.0 (2022-06-27)",
        capabilities: ["actions", "body", "body-hyperlinks", "icon-static", "body-markup"])
    static let gnome = NotificationServerProfile(
        name: "Notification Daemon", vendor: "GNOME", version: "3.20.0",
        capabilities: ["actions", "body", "body-markup", "icon-static", "sound", "persistence"])
    static let mate = NotificationServerProfile(
        name: "Notification Daemon", vendor: "MATE", version: "1.26.0",
        capabilities: ["actions", "action-icons", "body", "body-markup", "icon-static", "sound"])
    static let osd = NotificationServerProfile(
        name: "notify-osd", vendor: "Canonical Ltd", version: "1.0",
        capabilities: ["body", "body-markup", "x-canonical-append", "x-canonical-private-synchronous"])
    static let unknownWithSound = NotificationServerProfile(
        name: "something", vendor: "someone", version: "2", capabilities: ["sound"])

    @Test func gnomeListsSoundButNotifydPlaysItAndSilencesTheServer() {
        #expect(Self.gnome.sound == .none)
        let route = Self.gnome.route(.named("complete-download"))
        #expect(route == SoundRoute(hint: .silent, playedByNotifyd: .named("complete-download")))
        #expect(Self.gnome.route(.file("/x.oga")).playedByNotifyd == .file("/x.oga"))
    }

    /// KDE Plasma shows transfers as jobs of its own; nobody else does
    /// (GNOME Shell neither, and no server named Plasma by another vendor).
    @Test func onlyKDEPlasmaShowsTransfersAsJobs() {
        let plasma = NotificationServerProfile(name: "Plasma", vendor: "KDE", version: "5.27.5", capabilities: ["actions"])
        #expect(plasma.showsTransfersAsJobs)
        #expect(!plasma.drawsProgress)
        for (name, vendor) in [("gnome-shell", "GNOME"), ("dunst", "knopwob"), ("Plasma", "someone")] {
            #expect(!NotificationServerProfile(name: name, vendor: vendor, version: "1", capabilities: []).showsTransfersAsJobs)
        }
    }

    @Test func mateGetsFilesAndNotifydPlaysNames() {
        #expect(Self.mate.route(.file("/x.oga")) == SoundRoute(hint: .file("/x.oga"), playedByNotifyd: nil))
        #expect(Self.mate.route(.file("/x.oga")).serverBackend == "server")
        #expect(Self.mate.route(.named("dialog-error")) == SoundRoute(hint: .silent, playedByNotifyd: .named("dialog-error")))
    }

    @Test func aServerWithoutSoundGetsNoHintAndNotifydPlays() {
        #expect(Self.dunst.route(.named("complete-download")) == SoundRoute(hint: nil, playedByNotifyd: .named("complete-download")))
        #expect(Self.dunst.route(.silent) == SoundRoute(hint: nil, playedByNotifyd: nil))
        #expect(Self.dunst.route(.silent).serverBackend == "none")
    }

    @Test func anUnknownServerListingSoundIsBelieved() {
        #expect(Self.unknownWithSound.route(.named("bell")) == SoundRoute(hint: .named("bell"), playedByNotifyd: nil))
        #expect(Self.unknownWithSound.route(.silent) == SoundRoute(hint: .silent, playedByNotifyd: nil))
    }

    @Test func progressBarsAndQueuedReplacements() {
        #expect(Self.dunst.drawsProgress)
        #expect(!Self.gnome.drawsProgress)
        #expect(Self.osd.losesQueuedReplacements)
        #expect(!Self.dunst.losesQueuedReplacements)
    }

    @Test func markupAndActions() {
        #expect(Self.dunst.readsBodyMarkup && Self.dunst.hasActions)
        #expect(!Self.osd.hasActions)
        #expect(Self.dunst.description == "dunst 1.9.0 (2022-06-27)")
    }
}

@Suite struct MarkupTextTests {
    @Test(arguments: [
        ("<untitled>.pdf", "&lt;untitled&gt;.pdf"),
        (#"R&D <b>notes</b> "v2" <draft>.pdf"#, #"R&amp;D &lt;b&gt;notes&lt;/b&gt; "v2" &lt;draft&gt;.pdf"#),
        (#"<a href="https://example.com/">invoice.pdf</a>"#, #"&lt;a href="https://example.com/"&gt;invoice.pdf&lt;/a&gt;"#),
        ("&amp;", "&amp;amp;"),
        ("plain ünïcode 📦", "plain ünïcode 📦"),
        ("", ""),
    ])
    func escapes(text: String, escaped: String) {
        #expect(MarkupText.escaped(text) == escaped)
    }
}
