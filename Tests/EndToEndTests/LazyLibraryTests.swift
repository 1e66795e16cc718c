import DBus
import Foundation
import NotifyTesting
import NotifyTestingCore
import Testing

/// The libraries notifyd loads with `dlopen` only when first needed
/// (Sources/CLazyLibrary): an idle notifyd maps none of them.
@Suite struct LazyLibraryTests {
    /// The sonames of the libraries loaded lazily, and of those only they bring.
    static let lazilyLoaded = [
        "libcurl.so", "libstrophe.so", "libcrypto.so", "libssl.so", "libcanberra.so", "libsecret-1.so",
    ]

    /// Which of ``lazilyLoaded`` the process `pid` has mapped. Read to its
    /// end with ProcReader: Foundation stops early in a file of `/proc`,
    /// and under AddressSanitizer the shadow's mappings come first.
    static func mapped(by pid: Int32) throws -> Set<String> {
        guard let maps = ProcReader.readFile("/proc/\(pid)/maps") else {
            throw TestFailure("cannot read /proc/\(pid)/maps")
        }
        return Set(lazilyLoaded.filter { maps.contains("/\($0)") })
    }

    /// Started, answering, with badges set and an event handled: none mapped.
    @Test func anIdleNotifydMapsNoneOfThem() throws {
        let fixture = try Fixture()
        try fixture.badges("SetBadge", [.string("org.example.Mail"), .uint32(3)])
        #expect(try fixture.badge("org.example.Mail") == 3)
        #expect(try Self.mapped(by: fixture.daemon.pid) == [])
    }
}
