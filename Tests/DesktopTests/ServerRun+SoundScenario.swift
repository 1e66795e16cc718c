import DBus
import Foundation
import Testing
import NotifyTesting

extension ServerRun {
    /// 7. Sound: the hints sent and who played.
    func sound() throws {
        let app = app(.sound)
        try event("sound-name", app: app, ["--title", "named.ogg"])
        try event("sound-file", app: app, ["--title", "filed.ogg", "--sound", Self.soundFile])
        let received = try waitForNotifies(app, count: 2)
        guard let named = received.first(where: { $0.body == "named.ogg" }),
            let filed = received.first(where: { $0.body == "filed.ogg" })
        else { throw TestFailure("the two popups: \(received)") }
        let namedBackend = try waitForPosted("sound-name").details["sound-backend"]
        let fileBackend = try waitForPosted("sound-file").details["sound-backend"]
        let byNotifyd: Set<DBusValue> = [.string("canberra"), .string("failed")]
        func noSoundHints(_ notify: NotificationCallMonitor.Notify, _ what: String) {
            check(notify.hints["sound-name"] == nil, "\(what): sound-name sent: \(notify.hints)")
            check(notify.hints["sound-file"] == nil, "\(what): sound-file sent: \(notify.hints)")
        }
        switch expectation.sound {
        case .notListed:
            for (notify, backend, what) in [(named, namedBackend, "name"), (filed, fileBackend, "file")] {
                noSoundHints(notify, what)
                check(notify.hints["suppress-sound"] == nil, "\(what): suppress-sound sent: \(notify.hints)")
                check(byNotifyd.contains(backend ?? .string("")), "\(what): sound-backend \(String(describing: backend))")
            }
        case .listedButSilent:
            for (notify, backend, what) in [(named, namedBackend, "name"), (filed, fileBackend, "file")] {
                noSoundHints(notify, what)
                check(notify.hints["suppress-sound"] == .boolean(true), "\(what): no suppress-sound: \(notify.hints)")
                check(byNotifyd.contains(backend ?? .string("")), "\(what): sound-backend \(String(describing: backend))")
            }
        case .namesAndFiles:
            check(named.hints["sound-name"] == .string("complete-download"), "name: sound-name \(named.hints)")
            check(filed.hints["sound-file"] == .string(Self.soundFile), "file: sound-file \(filed.hints)")
            for (notify, backend, what) in [(named, namedBackend, "name"), (filed, fileBackend, "file")] {
                check(notify.hints["suppress-sound"] == nil, "\(what): suppress-sound sent: \(notify.hints)")
                check(backend == .string("server"), "\(what): sound-backend \(String(describing: backend))")
            }
        case .filesOnly:
            noSoundHints(named, "name")
            check(named.hints["suppress-sound"] == .boolean(true), "name: no suppress-sound: \(named.hints)")
            check(byNotifyd.contains(namedBackend ?? .string("")), "name: sound-backend \(String(describing: namedBackend))")
            check(filed.hints["sound-file"] == .string(Self.soundFile), "file: sound-file \(filed.hints)")
            check(filed.hints["suppress-sound"] == nil, "file: suppress-sound sent: \(filed.hints)")
            check(fileBackend == .string("server"), "file: sound-backend \(String(describing: fileBackend))")
        }
    }
}
