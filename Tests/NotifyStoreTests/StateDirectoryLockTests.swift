import Dispatch
import Glibc
import NotifyStore
import Testing

@Suite("State directory lock")
struct StateDirectoryLockTests {
    @Test("a second store on the same directory is refused with .locked")
    func secondStoreIsRefused() throws {
        try withTemporaryDirectory { root in
            let first = try StateStore(directory: root)
            let error = #expect(throws: StoreError.self) { _ = try StateStore(directory: root) }
            #expect(error?.code == .locked)
            #expect(error?.path == root)
            #expect(error?.message.contains(root) == true)
            #expect(error?.message.contains("(pid \(getpid()))") == true)
            withExtendedLifetime(first) {}
        }
    }

    /// As a child forked while a store held the lock holds it until it
    /// execs: a holder that lets go within the patience is waited for.
    @Test("a lock let go a moment later is taken")
    func heldForAMoment() throws {
        try withTemporaryDirectory { root in
            let other = open("\(root)/\(StateStore.lockFileName)", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            try #require(other >= 0 && flock(other, LOCK_EX | LOCK_NB) == 0)
            let start = DispatchTime.now()
            DispatchQueue.global().asyncAfter(deadline: start + 0.3) { close(other) }
            let store = try StateStore(directory: root)
            let waited = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            #expect(waited >= 0.29, "the lock was held until then")
            #expect(try store.loadBadges() == [:])
        }
    }

    @Test("the lock is released when the store is released")
    func releasedOnDeinit() throws {
        try withTemporaryDirectory { root in
            var first: StateStore? = try StateStore(directory: root)
            #expect(first != nil)
            first = nil
            let second = try StateStore(directory: root)
            #expect(second.directory == root)
        }
    }

    @Test("the lock is released when opening the store fails after taking it")
    func releasedOnFailedOpen() throws {
        try withTemporaryDirectory { root in
            let peek = try SQLiteDatabase(path: "\(root)/\(StateStore.databaseFileName)")
            try peek.setUserVersion(StateSchema.latestVersion + 1)
            #expect(throws: StoreError.self) { _ = try StateStore(directory: root) }
            try peek.setUserVersion(0)
            let store = try StateStore(directory: root)
            #expect(try store.loadBadges() == [:])
        }
    }

    @Test("the lock file is created with mode 0600")
    func lockFileMode() throws {
        try withTemporaryDirectory { root in
            let store = try StateStore(directory: "\(root)/state")
            #expect(permissions(of: "\(root)/state/\(StateStore.lockFileName)") == 0o600)
            #expect(permissions(of: "\(root)/state") == 0o700)
            withExtendedLifetime(store) {}
        }
    }
}
