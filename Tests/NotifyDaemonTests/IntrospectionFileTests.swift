import DBus
import Foundation
import NotifyCore
import NotifyDaemon
import Testing
import NotifyTesting

/// The committed introspection file is generated from the interface
/// declarations; this fails when they drift apart.
@Suite struct IntrospectionFileTests {
    @Test func committedFileIsTheGeneratedOne() throws {
        let url = Executables.repositoryRoot().appendingPathComponent("dbus/org.notifyd.Notifyd1.xml")
        let committed = try String(contentsOf: url, encoding: .utf8)
        #expect(
            committed == NotifydObject.documentedXML,
            "dbus/org.notifyd.Notifyd1.xml is out of date: regenerate it with `notifyd --print-introspection > dbus/org.notifyd.Notifyd1.xml`")
    }

    @Test func everyInterfaceOfTheContractIsDeclared() {
        let names = NotifydObject.declarations.map(\.name)
        #expect(names.contains("org.notifyd.Notifyd1.Badges"))
        #expect(names.contains("org.notifyd.Notifyd1.Daemon"))
    }

    /// Names are unique per kind of member (SPEC gives Sessions a method and
    /// a signal both named HandleEventsForBackgroundSession, which D-Bus allows).
    @Test func membersAreUniqueWithinEachInterface() {
        for interface in NotifydObject.declarations {
            for names in [interface.methods.map(\.name), interface.signals.map(\.name), interface.properties.map(\.name)] {
                #expect(Set(names).count == names.count, "\(interface.name)")
            }
        }
    }

    /// The event dictionary's keys are documented from their one table,
    /// on the method and on the worker signal alike.
    @Test func eventKeysAreDocumentedFromTheirTable() throws {
        let sessions = try #require(NotifydObject.declarations.first { $0.name == NotifydNames.sessionsInterface })
        let method = try #require(sessions.method(named: "HandleEventsForBackgroundSession"))
        #expect(method.documentation.contains(WorkerEventKey.documentation))
        let signal = try #require(NotifydObject.workerDeclaration.signal(named: "EventsForBackgroundSession"))
        #expect(signal.documentation == WorkerEventKey.documentation)
    }

    @Test func committedWorkerFileIsTheGeneratedOne() throws {
        let url = Executables.repositoryRoot().appendingPathComponent("dbus/org.notifyd.Notifyd1.Worker.xml")
        let committed = try String(contentsOf: url, encoding: .utf8)
        #expect(
            committed == NotifydObject.workerXML,
            "dbus/org.notifyd.Notifyd1.Worker.xml is out of date: regenerate it with `notifyd --print-worker-introspection`")
    }

    @Test func committedDistributorFileIsTheGeneratedOne() throws {
        let url = Executables.repositoryRoot().appendingPathComponent("dbus/org.unifiedpush.Distributor.notifyd.xml")
        let committed = try String(contentsOf: url, encoding: .utf8)
        #expect(
            committed == NotifydObject.distributorXML,
            "dbus/org.unifiedpush.Distributor.notifyd.xml is out of date: regenerate it with `notifyd --print-distributor-introspection`")
    }
}
