import DBus
import Logging
import NotifyStore

@testable import NotifyDaemon

extension Committer {
    /// A committer on `store`, with a writer thread of its own that wakes
    /// `owner` (a loop the test may never run: ``drain(carryingOut:)``
    /// then takes what the writer has done).
    convenience init(store: StateStore, owner: EventLoop, logger: Logger) throws {
        try self.init(store: store, writer: StoreWriter(store: store, owner: owner, logger: logger), logger: logger)
    }
}
