import Glibc
import NotifySecrets
import NotifyTesting
import Testing

/// SecretKeeper against a real gnome-keyring-daemon on a private bus, and
/// against buses where no Secret Service answers.
@Suite("SecretKeeper")
struct SecretKeeperTests {
    static let password = "correct horse battery staple"

    @Test("store, look up, store again to replace, remove: against gnome-keyring")
    func roundTrip() throws {
        let keyring = try KeyringSession()
        let keeper = try SecretKeeper(busAddress: keyring.bus.address)
        defer { keeper.stop() }
        let account = "alice@push.example", server = "push.example"

        let stored: SecretOutcome = try answer("stored") {
            keeper.store(Self.password, account: account, server: server, label: "notifyd push server", done: $0)
        }
        #expect(stored == .storedInSecretService)
        let found: SecretLookup = try answer("looked up") { keeper.lookup(account: account, server: server, done: $0) }
        #expect(found == .found(Self.password))
        let other: SecretLookup = try answer("another account looked up") {
            keeper.lookup(account: "bob@push.example", server: server, done: $0)
        }
        #expect(other == .notFound)

        let replaced: SecretOutcome = try answer("stored again") {
            keeper.store("a newer password", account: account, server: server, label: "notifyd push server", done: $0)
        }
        #expect(replaced == .storedInSecretService)
        // A second keeper (a connection of its own) sees what the service holds.
        let second = try SecretKeeper(busAddress: keyring.bus.address)
        defer { second.stop() }
        let newer: SecretLookup = try answer("looked up again") { second.lookup(account: account, server: server, done: $0) }
        #expect(newer == .found("a newer password"))

        let removed: SecretRemoval = try answer("removed") { keeper.remove(account: account, server: server, done: $0) }
        #expect(removed == .removed)
        let gone: SecretLookup = try answer("looked up after removal") {
            keeper.lookup(account: account, server: server, done: $0)
        }
        #expect(gone == .notFound)
        let again: SecretRemoval = try answer("removed again") { keeper.remove(account: account, server: server, done: $0) }
        #expect(again == .notFound)
        #expect(!keyring.home.tail(of: "keyring.log", lines: 1000, empty: "").contains(Self.password))
    }

    @Test("no Secret Service on the bus: unavailable, in words, at once")
    func noSecretService() throws {
        let bus = try TestBus()
        let keeper = try SecretKeeper(busAddress: bus.address, timeoutSeconds: 10)
        defer { keeper.stop() }
        let started = MonotonicClock.nanoseconds()
        let stored: SecretOutcome = try answer("store refused") {
            keeper.store(Self.password, account: "alice", server: "push.example", label: "notifyd", done: $0)
        }
        let looked: SecretLookup = try answer("lookup refused") { keeper.lookup(account: "alice", server: "push.example", done: $0) }
        let removed: SecretRemoval = try answer("remove refused") { keeper.remove(account: "alice", server: "push.example", done: $0) }
        #expect(MonotonicClock.nanoseconds() - started < 9_000_000_000, "answered before the 10 s bound")
        let reasons = [Self.reason(stored), Self.reason(looked), Self.reason(removed)]
        for reason in reasons {
            #expect(reason?.contains("no Secret Service answers on the bus") == true, "\(reason ?? "no reason")")
            #expect(reason?.contains(Self.password) == false)
        }
    }

    @Test("a bus that is not there: unavailable, saying it could not connect")
    func noBus() throws {
        let directory = try ScratchDirectory(prefix: "notifyd-nobus")
        defer { directory.remove() }
        let keeper = try SecretKeeper(busAddress: "unix:path=\(directory.appending("absent"))")
        defer { keeper.stop() }
        let stored: SecretOutcome = try answer("store refused") {
            keeper.store(Self.password, account: "alice", server: "push.example", label: "notifyd", done: $0)
        }
        let reason = try #require(Self.reason(stored))
        #expect(reason.hasPrefix("connecting to the session bus failed"), "\(reason)")
        #expect(!reason.contains(Self.password))
    }

    @Test("a Secret Service that never answers: unavailable after the bound, never a hang")
    func silentService() throws {
        let bus = try TestBus()
        // Owns the name and reads nothing: every call to it goes unanswered.
        let silent = try SpawnedProcess(
            "/usr/bin/python3",
            [
                "-c",
                "import dbus, sys, time; b = dbus.bus.BusConnection(sys.argv[1]); "
                    + "b.request_name('org.freedesktop.secrets'); time.sleep(600)",
                bus.address,
            ],
            environment: childEnvironment())
        defer { _ = silent.kill(SIGKILL) }
        try waitUntil("the silent service owns org.freedesktop.secrets") {
            try KeyringSession.nameHasOwner("org.freedesktop.secrets", on: bus.address)
        }
        let keeper = try SecretKeeper(busAddress: bus.address, timeoutSeconds: 1)
        defer { keeper.stop() }
        let started = MonotonicClock.nanoseconds()
        let looked: SecretLookup = try answer("lookup gave up", seconds: 20) {
            keeper.lookup(account: "alice", server: "push.example", done: $0)
        }
        let elapsed = MonotonicClock.nanoseconds() - started
        let reason = try #require(Self.reason(looked))
        #expect(reason.contains("did not finish") && reason.contains("within 1 s"), "\(reason)")
        #expect(elapsed >= 900_000_000 && elapsed < 10_000_000_000, "\(elapsed) ns")
    }

    @Test("a locked keyring whose unlock prompt is dismissed (no prompter on the bus): unavailable, saying so")
    func lockedKeyring() throws {
        let keyring = try KeyringSession()
        let keeper = try SecretKeeper(busAddress: keyring.bus.address, timeoutSeconds: 5)
        defer { keeper.stop() }
        let first: SecretOutcome = try answer("stored while unlocked") {
            keeper.store(Self.password, account: "alice", server: "push.example", label: "notifyd", done: $0)
        }
        #expect(first == .storedInSecretService)
        try keyring.lockLoginKeyring()

        let stored: SecretOutcome = try answer("store refused") {
            keeper.store("another", account: "alice", server: "push.example", label: "notifyd", done: $0)
        }
        #expect(stored == .unavailable(reason: "the keyring is locked and was not unlocked (its unlock prompt was dismissed)"))
        // Not .notFound: the password is there, behind the lock.
        let looked: SecretLookup = try answer("lookup refused") {
            keeper.lookup(account: "alice", server: "push.example", done: $0)
        }
        #expect(looked == .unavailable(reason: "the keyring holding the password is locked and was not unlocked"))
        let removed: SecretRemoval = try answer("remove refused") {
            keeper.remove(account: "alice", server: "push.example", done: $0)
        }
        #expect(removed == .unavailable(reason: "the keyring holding the password is locked and was not unlocked"))
    }

    @Test("the bus goes away under the keeper: unavailable, the process not signalled, and it connects again when asked")
    func busGoesAway() throws {
        let keyring = try KeyringSession()
        let keeper = try SecretKeeper(busAddress: keyring.bus.address)
        defer { keeper.stop() }
        let stored: SecretOutcome = try answer("stored") {
            keeper.store(Self.password, account: "alice", server: "push.example", label: "notifyd", done: $0)
        }
        #expect(stored == .storedInSecretService)
        keyring.bus.stop()
        _ = keyring.bus.process.wait()
        // The first call may still find the connection open (its close not
        // yet noticed): it fails on it; the next one finds it closed and
        // tries to connect again, which fails too.
        var reasons: [String] = []
        try waitUntil("the keeper tried to connect again") {
            let looked: SecretLookup = try answer("lookup without a bus") {
                keeper.lookup(account: "alice", server: "push.example", done: $0)
            }
            guard case .unavailable(let reason) = looked else { throw TestFailure("answered \(looked) without a bus") }
            reasons.append(reason)
            return reason.hasPrefix("connecting to the session bus failed")
        }
        #expect(reasons.allSatisfy { !$0.contains(Self.password) })
    }

    @Test("the keeper's thread is named notifyd-secrets; after stop, calls are answered unavailable at once")
    func stopped() throws {
        let bus = try TestBus()
        let keeper = try SecretKeeper(busAddress: bus.address)
        try waitUntil("a thread named notifyd-secrets runs") {
            ProcReader.directoryEntries("/proc/self/task").contains {
                ProcReader.readFile("/proc/self/task/\($0)/comm") == "notifyd-secrets\n"
            }
        }
        keeper.stop()
        let stored: SecretOutcome = try answer("store after stop") {
            keeper.store(Self.password, account: "alice", server: "push.example", label: "notifyd", done: $0)
        }
        #expect(stored == .unavailable(reason: "the secret keeper was stopped"))
        keeper.stop()
    }

    static func reason(_ outcome: SecretOutcome) -> String? {
        if case .unavailable(let reason) = outcome { return reason }
        return nil
    }

    static func reason(_ lookup: SecretLookup) -> String? {
        if case .unavailable(let reason) = lookup { return reason }
        return nil
    }

    static func reason(_ removal: SecretRemoval) -> String? {
        if case .unavailable(let reason) = removal { return reason }
        return nil
    }
}
