import NotifyCore
import Testing

@Suite struct FlatpakInfoTests {
    /// As Flatpak writes it for `flatpak run org.gnome.Maps`.
    static let maps = """
        [Application]
        name=org.gnome.Maps
        runtime=runtime/org.gnome.Platform/x86_64/46

        [Instance]
        instance-id=1234567890
        app-path=/var/lib/flatpak/app/org.gnome.Maps/x86_64/stable/0a1b2c/files
        app-commit=0a1b2c
        arch=x86_64
        flatpak-version=1.14.6
        session-bus-proxy=true
        system-bus-proxy=true

        [Context]
        shared=network;ipc;
        sockets=x11;wayland;pulseaudio;fallback-x11;

        [Session Bus Policy]
        org.freedesktop.Notifications=talk
        """

    @Test func readsTheApplicationName() {
        #expect(FlatpakInfo.applicationName(fromKeyFile: Self.maps) == "org.gnome.Maps")
    }

    @Test func otherGroupsComeBeforeOrAfter() {
        let text = """
            [Instance]
            name=not.this.One

            [Application]
            runtime=runtime/org.kde.Platform/x86_64/6.7
            name=org.kde.dolphin
            """
        #expect(FlatpakInfo.applicationName(fromKeyFile: text) == "org.kde.dolphin")
    }

    @Test func commentsSpacesAndLineEndsAreIgnored() {
        let text =
            "# written by flatpak\r\n  [Application]  \r\n# name=org.example.Commented\r\n"
            + "\tname \t=  org.example.Spaced \r\n"
        #expect(FlatpakInfo.applicationName(fromKeyFile: text) == "org.example.Spaced")
    }

    @Test func theFirstNameWinsAndLocalisedKeysAreOtherKeys() {
        let text = """
            [Application]
            name[de]=org.example.German
            name=org.example.First
            name=org.example.Second
            [Application]
            name=org.example.Third
            """
        #expect(FlatpakInfo.applicationName(fromKeyFile: text) == "org.example.First")
    }

    @Test(arguments: [
        "",
        "[Runtime]\nname=org.gnome.Platform\n",
        "name=org.example.BeforeAnyGroup\n[Application]\nruntime=x\n",
        "[Application]\nname=\n",
        "[application]\nname=org.example.WrongCase\n",
        "[Application]\n#name=org.example.Commented\n",
    ])
    func noApplicationName(_ text: String) {
        #expect(FlatpakInfo.applicationName(fromKeyFile: text) == nil)
    }
}
