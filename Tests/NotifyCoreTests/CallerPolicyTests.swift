import NotifyCore
import Testing

@Suite struct CallerPolicyTests {
    let maps = try! AppID("org.gnome.Maps")
    let mail = try! AppID("org.example.Mail")
    static let user: UInt32 = 1000
    static let cgroup =
        "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Nautilus-12345.scope\n"

    @Test func hostCallersOfTheUserMayActForAnyApp() throws {
        let plain = CallerIdentity(userID: Self.user, processID: 42, sandbox: .host)
        let scoped = CallerIdentity(userID: Self.user, processID: 42, flatpakInfo: nil, cgroup: Self.cgroup)
        #expect(scoped.scopeApp == (try AppID("org.gnome.Nautilus")))
        for caller in [plain, scoped] {
            try CallerPolicy.check(caller, actingFor: maps, daemonUserID: Self.user)
            try CallerPolicy.check(caller, actingFor: mail, daemonUserID: Self.user)
        }
    }

    @Test func anotherUserIsNotPermitted() {
        for sandbox in [CallerSandbox.host, .flatpak(maps)] {
            let caller = CallerIdentity(userID: 1001, processID: 42, sandbox: sandbox)
            let error = #expect(throws: NotifydError.self) {
                try CallerPolicy.check(caller, actingFor: maps, daemonUserID: Self.user)
            }
            #expect(error?.code == .notPermitted)
            #expect(error?.message.contains("user 1001") == true)
        }
        let root = CallerIdentity(userID: 0, processID: 1, sandbox: .host)
        #expect(throws: NotifydError.self) { try CallerPolicy.check(root, actingFor: maps, daemonUserID: Self.user) }
    }

    @Test func aSandboxedCallerMayActOnlyForItsOwnApp() throws {
        let caller = CallerIdentity(
            userID: Self.user, processID: 42, flatpakInfo: "[Application]\nname=org.gnome.Maps\n", cgroup: Self.cgroup)
        #expect(caller.sandbox == .flatpak(maps))
        #expect(caller.sandboxedApp == maps)
        try CallerPolicy.check(caller, actingFor: maps, daemonUserID: Self.user)
        let error = #expect(throws: NotifydError.self) {
            try CallerPolicy.check(caller, actingFor: mail, daemonUserID: Self.user)
        }
        #expect(error?.code == .notPermitted)
        #expect(error?.message.contains("org.gnome.Maps") == true)
        #expect(error?.message.contains("org.example.Mail") == true)
    }

    @Test(arguments: ["", "[Runtime]\nname=org.gnome.Platform\n", "[Application]\nname=not valid\n"])
    func aSandboxWithoutAValidAppMayActForNone(_ flatpakInfo: String) {
        let caller = CallerIdentity(userID: Self.user, processID: 42, flatpakInfo: flatpakInfo, cgroup: Self.cgroup)
        #expect(caller.sandbox == .flatpak(nil))
        #expect(caller.sandboxedApp == nil)
        let error = #expect(throws: NotifydError.self) {
            try CallerPolicy.check(caller, actingFor: maps, daemonUserID: Self.user)
        }
        #expect(error?.code == .notPermitted)
        #expect(CallerPolicy.identifiedApp(caller) == nil)
    }

    @Test func anUnknownSandboxIsNotPermitted() {
        for processID: UInt32? in [42, nil] {
            let caller = CallerIdentity(userID: Self.user, processID: processID, sandbox: .unknown)
            let error = #expect(throws: NotifydError.self) {
                try CallerPolicy.check(caller, actingFor: maps, daemonUserID: Self.user)
            }
            #expect(error?.code == .notPermitted)
            #expect(error?.message.contains(processID == nil ? "no process ID" : "/proc/42") == true)
        }
        let departed = CallerIdentity(
            userID: Self.user, processID: nil, sandbox: .unknown, departure: "it left the bus before notifyd could ask")
        let error = #expect(throws: NotifydError.self) {
            try CallerPolicy.check(departed, actingFor: maps, daemonUserID: Self.user)
        }
        #expect(error?.code == .notPermitted)
        #expect(error?.message.contains("could not be identified: it left the bus") == true)
    }

    @Test func identifiedAppIsTheSandboxFirstThenTheScope() throws {
        let nautilus = try AppID("org.gnome.Nautilus")
        let sandboxed = CallerIdentity(userID: Self.user, processID: 42, sandbox: .flatpak(maps), scopeApp: nautilus)
        #expect(CallerPolicy.identifiedApp(sandboxed) == maps)
        let host = CallerIdentity(userID: Self.user, processID: 42, sandbox: .host, scopeApp: nautilus)
        #expect(CallerPolicy.identifiedApp(host) == nautilus)
        #expect(CallerPolicy.identifiedApp(CallerIdentity(userID: Self.user, processID: nil, sandbox: .host)) == nil)
        let unknown = CallerIdentity(userID: Self.user, processID: 42, sandbox: .unknown, scopeApp: nautilus)
        #expect(CallerPolicy.identifiedApp(unknown) == nil)
    }

    @Test func noFlatpakInfoIsTheHost() {
        #expect(CallerSandbox(flatpakInfo: nil) == .host)
        #expect(CallerIdentity(userID: Self.user, processID: 42, flatpakInfo: nil, cgroup: nil).scopeApp == nil)
    }
}
