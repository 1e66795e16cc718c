// swift-tools-version:6.0
//
// notifyd: iOS-style background completion for the Linux desktop. Linux
// only (libdbus, epoll, timerfd, libnotify): no other platform is declared.
//
// Layers, with one-way arrows:
//   C system libraries (CDBus, CLinux, CLibnotify, CCanberra, CSQLite, CStrophe,
//   CLibsecret, CCurl, CCrypto)
//   -> DBus (a Swift layer over libdbus and the event loop; knows nothing of
//      notifications)
//   -> NotifyCore (pure, in feature folders: the books of badges, sessions,
//      apps, fetches and tasks, the fetch planner, the popups' book; one
//      operation per thing that can happen, returning a Decision: its
//      answer, the rows to store, the effects to carry out; and when
//      anything is next due; clock injected, no I/O)
//   -> NotifyStore (SQLite) and NotifyDesktop (adapters that decide
//      nothing: LauncherEntry, libnotify and GIO on a GLib thread,
//      libcanberra, KDE's job views, network and power monitors)
//   -> NotifyDaemon (decodes and authorizes each call and applies the
//      core's decision through the Committer: stored in the batch, then
//      replies, then the EffectRunner, the one emitter, carries out the
//      effects; one timer follows every deadline)
//   -> thin executables notifyd, notifyctl, notifyd-bench, notifyd-fuzz
// Beside the core, each on a thread of its own and knowing nothing of the
// daemon (which hops their events onto its loop): NotifyPush (UnifiedPush
// clients), NotifySecrets (the Secret Service) and NotifyTransfer
// (background downloads and uploads), the first and the last on
// WorkerThread (a named thread with a command mailbox that wakes it).
// Test support is a library too: NotifyTestingCore (no Foundation: the bus
// configuration, the recording notification server, the loop thread, the
// seeded generator), used by the bench and the fuzzer, and NotifyTesting
// (processes, Xvfb, desktops, and the in-process daemon harness with a
// clock moved by hand), used by every test target.
import PackageDescription

#if canImport(Glibc)
import Glibc
#endif

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// Release executables are linked by LLVM's lld (the Swift toolchain's own)
/// with read-only relocations (`-z relro`, Debian's hardening; lintian:
/// hardening-no-relro) and, where the C library has them (glibc 2.36, as in
/// Debian 12), packed relative relocations (`-z pack-relative-relocs`,
/// DT_RELR): the ~39,000 relative relocations of the static Swift runtime
/// and notifyd's metadata shrink from 0.9 MB, read at every start, to 8 KB.
/// GNU ld packs them too but can make nothing read-only: Swift's `.rodata`
/// is writable, and ld then puts all data in one segment with no RELRO.
/// Idle VmRSS of notifyd, three runs each: lld 13.8-14.0 MB, GNU ld with
/// packed relocations 14.3-14.4 MB, gold (no packing) 14.5-14.8 MB.
let releaseLinking: [LinkerSetting] = {
    let release = BuildSettingCondition.when(platforms: [.linux], configuration: .release)
    var flags = ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "relro"]
    #if canImport(Glibc)
    var buffer = [CChar](repeating: 0, count: 64)
    if confstr(Int32(_CS_GNU_LIBC_VERSION), &buffer, buffer.count) > 0 {
        // "glibc 2.36"
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let version = text.split(separator: " ").last?.split(separator: ".").compactMap { Int($0) } ?? []
        if version.count >= 2, (version[0], version[1]) >= (2, 36) {
            flags += ["-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"]
        }
    }
    #endif
    return [.unsafeFlags(flags, release)]
}()

let package = Package(
    name: "notifyd",
    products: [
        .executable(name: "notifyd", targets: ["notifyd"]),
        .executable(name: "notifyctl", targets: ["notifyctl"]),
        .executable(name: "notifyd-browser-host", targets: ["notifyd-browser-host"]),
        .executable(name: "notifyd-bench", targets: ["notifyd-bench"]),
        .executable(name: "notifyd-fuzz", targets: ["notifyd-fuzz"]),
        .library(name: "DBus", targets: ["DBus"]),
        .library(name: "NotifyTesting", targets: ["NotifyTesting"]),
        .library(name: "NotifyTestingCore", targets: ["NotifyTestingCore"]),
        // For Fuzz/, a package of its own (libFuzzer targets, built with
        // scripts/fuzz): the modules whose readers of outside bytes it fuzzes.
        .library(name: "NotifydFuzzing", targets: ["DBus", "NotifyCore", "NotifyDaemon", "NotifyPush", "BrowserBridge"]),
        // LD_PRELOAD'ed into notifyd by tests and the bench: a disk whose
        // fsync takes longer, or that a test holds still (Sources/SlowDisk).
        .library(name: "SlowDisk", type: .dynamic, targets: ["SlowDisk"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // HeapModule only: the one heap of the event loop's timers and the core's deadlines.
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    ],
    targets: [
        // MARK: C system libraries
        .systemLibrary(
            name: "CDBus", pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(name: "CLinux"),
        .target(name: "SlowDisk"),
        .systemLibrary(
            name: "CLibnotify", pkgConfig: "libnotify",
            providers: [.apt(["libnotify-dev"])]),
        // Sounds (libcanberra-dev for the headers), loaded with dlopen at the
        // first sound notifyd plays itself, not linked.
        .target(name: "CCanberra", dependencies: ["CLazyLibrary"]),
        // Only for its pkg-config flags: CLibnotify's shim includes
        // gio/gdesktopappinfo.h, which is under gio-unix-2.0's include path.
        .systemLibrary(
            name: "CGioUnix", pkgConfig: "gio-unix-2.0",
            providers: [.apt(["libglib2.0-dev"])]),
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        // XMPP (libstrophe-dev for its headers), loaded with dlopen when an
        // XMPP server is set, not linked (Sources/CStrophe/include/cstrophe.h).
        .target(name: "CStrophe", dependencies: ["CLazyLibrary"]),
        // The Secret Service (libsecret-1-dev for the headers), loaded with
        // dlopen when the push password is first asked for, not linked;
        // CGioUnix gives GLib's include paths.
        .target(name: "CLibsecret", dependencies: ["CLazyLibrary", "CGioUnix"]),
        // The ntfy push client's HTTP and the background transfers: libcurl
        // (the OpenSSL flavour, as Debian builds it; libcurl4-openssl-dev for
        // its headers), loaded with dlopen at its first use, not linked
        // (Sources/CCurl/include/ccurl.h).
        .target(name: "CCurl", dependencies: ["CLazyLibrary"]),
        // SHA-256 of downloads (OpenSSL's EVP digests, libssl-dev for the
        // headers), loaded with dlopen at the first download, not linked.
        .target(name: "CCrypto", dependencies: ["CLazyLibrary"]),
        // dlopen of all of a library's functions or none, for the lazily
        // loaded targets (CCurl, CStrophe, CCrypto, CCanberra, CLibsecret).
        .target(name: "CLazyLibrary"),

        // MARK: Libraries
        .target(
            name: "DBus",
            dependencies: [
                "CDBus", "CLinux", .product(name: "Logging", package: "swift-log"),
                .product(name: "HeapModule", package: "swift-collections"),
            ],
            swiftSettings: strictSettings),
        .target(
            name: "NotifyCore",
            dependencies: [.product(name: "HeapModule", package: "swift-collections")],
            swiftSettings: strictSettings),
        .target(
            name: "NotifyStore",
            dependencies: ["CSQLite"],
            swiftSettings: strictSettings),
        // The UnifiedPush clients of push servers, each on a thread of its
        // own: XMPP (libstrophe) and ntfy (libcurl); they know nothing of the
        // daemon, which hops their events onto its loop.
        .target(
            name: "NotifyPush", dependencies: ["CStrophe", "CCurl", "CLinux", "WorkerThread"],
            swiftSettings: strictSettings),
        // A named POSIX thread with a command mailbox whose eventfd wakes it:
        // what the push clients and the transfer engine run on.
        .target(name: "WorkerThread", dependencies: ["CLinux"], swiftSettings: strictSettings),
        // Background downloads and uploads (SPEC "Background transfers"):
        // libcurl's multi handle on a thread of its own, partial files beside
        // the destination, resumed with Range and If-Range, SHA-256 checked.
        .target(
            name: "NotifyTransfer", dependencies: ["CCurl", "CLinux", "CCrypto", "WorkerThread"],
            swiftSettings: strictSettings),
        // The push password in the Secret Service (libsecret on a thread of
        // its own, on a D-Bus connection of its own); the caller falls back
        // to its own store when none answers.
        .target(name: "NotifySecrets", dependencies: ["CLibsecret"], swiftSettings: strictSettings),
        .target(
            name: "NotifyDesktop",
            dependencies: [
                "DBus", "NotifyCore", "CLibnotify", "CCanberra", "CGioUnix",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings),
        .target(
            name: "NotifyDaemon",
            dependencies: [
                "DBus", "NotifyCore", "NotifyStore", "NotifyDesktop", "NotifyPush", "NotifySecrets", "NotifyTransfer",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings),

        // The browser extension's native messaging host, without Foundation
        // (it starts with each browser).
        .target(name: "BrowserBridge", dependencies: ["DBus", "NotifyCore"], swiftSettings: strictSettings),

        // MARK: Executables
        .executableTarget(
            name: "notifyd",
            dependencies: [
                "NotifyDaemon", "NotifyCore", "DBus",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings, linkerSettings: releaseLinking),
        .executableTarget(
            name: "notifyctl",
            dependencies: [
                "DBus", "NotifyCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings, linkerSettings: releaseLinking),
        .executableTarget(
            name: "notifyd-browser-host", dependencies: ["BrowserBridge", "DBus", "NotifyCore"],
            swiftSettings: strictSettings, linkerSettings: releaseLinking),
        .executableTarget(
            name: "notifyd-bench",
            dependencies: [
                // NotifyTesting for the push section's Prosody; CStrophe for its bare client.
                "DBus", "NotifyCore", "NotifyTestingCore", "NotifyTesting", "CStrophe",
                // The transfer-drive section: the engine against libcurl on an event loop.
                "NotifyTransfer", "CCurl", "CLinux",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings),

        .executableTarget(
            name: "notifyd-fuzz",
            dependencies: [
                // NotifyDaemon for its interface declarations: the members to fuzz.
                "DBus", "NotifyCore", "NotifyDaemon", "NotifyTestingCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings),

        // MARK: Test support, shared by the tests, notifyd-bench and notifyd-fuzz
        // (a private bus, a recording notification server, the loop thread, a
        // seeded generator). Neither imports Testing or XCTest.
        // NotifyTestingCore is the part without Foundation or Dispatch (the
        // bench and the fuzzer do without both); NotifyTesting re-exports it.
        .target(name: "NotifyTestingCore", dependencies: ["DBus"], swiftSettings: strictSettings),
        // NotifyTesting also holds the in-process daemon harness (NotifyDaemon
        // on a thread of the test, with a clock moved by hand).
        .target(
            name: "NotifyTesting",
            dependencies: [
                "DBus", "NotifyTestingCore", "NotifyDaemon", "NotifyCore",
                .product(name: "Logging", package: "swift-log"),
            ]),

        // MARK: Tests, one target per module plus the bus-level suite
        .testTarget(name: "DBusTests", dependencies: ["DBus", "NotifyTesting"], swiftSettings: strictSettings),
        .testTarget(name: "NotifyCoreTests", dependencies: ["NotifyCore"], swiftSettings: strictSettings),
        .testTarget(name: "CLazyLibraryTests", dependencies: ["CLazyLibrary"], swiftSettings: strictSettings),
        .testTarget(name: "NotifyStoreTests", dependencies: ["NotifyStore"], swiftSettings: strictSettings),
        // Against a private Prosody with mod_unified_push (NotifyTesting's ProsodyServer)
        // and an ntfy double (NotifyTesting's NtfyDoubleServer).
        .testTarget(
            name: "NotifyPushTests", dependencies: ["NotifyPush", "NotifyTesting"], swiftSettings: strictSettings),
        // Against a private nginx (NotifyTesting's NginxServer): static files, WebDAV PUT, TLS with a test CA.
        .testTarget(
            name: "NotifyTransferTests", dependencies: ["NotifyTransfer", "NotifyTesting"],
            swiftSettings: strictSettings),
        // Against a real gnome-keyring-daemon on a private bus.
        .testTarget(
            name: "NotifySecretsTests", dependencies: ["NotifySecrets", "NotifyTesting"], swiftSettings: strictSettings),
        .testTarget(name: "BrowserBridgeTests", dependencies: ["BrowserBridge", "DBus"], swiftSettings: strictSettings),
        .testTarget(
            name: "NotifyDesktopTests", dependencies: ["NotifyDesktop", "DBus", "NotifyTesting", "CGioUnix"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "NotifyDaemonTests", dependencies: ["NotifyDaemon", "DBus", "NotifyTesting"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "NotifyctlTests",
            dependencies: [
                "notifyctl", "NotifyTesting", "DBus",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["DBus", "NotifyTesting", "notifyd", "notifyctl", "notifyd-fuzz"],
            swiftSettings: strictSettings),
        // Chromium and Firefox ESR, headless, with the extension and the host.
        .testTarget(
            name: "BrowserTests",
            dependencies: ["DBus", "NotifyTesting", "notifyd", "notifyctl", "notifyd-browser-host", "BrowserBridge"],
            swiftSettings: strictSettings),
        // Real notification servers under Xvfb, one after another; renders docs/DESKTOPS.md.
        .testTarget(
            name: "DesktopTests",
            dependencies: ["DBus", "NotifyTesting", "notifyd", "notifyctl", "notifyd-browser-host"],
            swiftSettings: strictSettings),
    ],
    swiftLanguageModes: [.v6]
)
