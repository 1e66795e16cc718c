import NotifyCore
import Testing

@Suite struct AppBookTests {
    let mail = try! AppID("org.example.Mail")
    let maps = try! AppID("org.gnome.Maps")
    let files = try! AppID("org.gnome.Nautilus")

    @Test func unknownAppIsNotRunningWithoutOwner() {
        let book = AppBook()
        #expect(book.state(of: mail) == .notRunning)
        #expect(book.owner(of: mail) == nil)
        #expect(book.activations(of: mail).isEmpty)
        #expect(book.knownApps.isEmpty)
        #expect(book.owners.isEmpty)
    }

    @Test func stateNamesAreTheWireNames() {
        #expect(AppState.allCases.map(\.rawValue) == ["active", "inactive", "background", "not-running"])
        #expect(AppState(rawValue: "not-running") == .notRunning)
    }

    @Test func reportsChangeStateAndOwner() throws {
        var book = AppBook()
        let first = try book.report(.active, for: mail, by: ":1.5", at: 10)
        #expect(first.change == AppStateChange(app: mail, old: .notRunning, new: .active))
        #expect(first.activation == Activation(app: mail, at: 10))
        #expect(first.droppedActivations == 0)
        #expect(book.state(of: mail) == .active)
        #expect(book.owner(of: mail) == ":1.5")

        let resign = try book.report(.inactive, for: mail, by: ":1.5", at: 20)
        #expect(resign.change == AppStateChange(app: mail, old: .active, new: .inactive))
        #expect(resign.activation == nil)
        let background = try book.report(.background, for: mail, by: ":1.5", at: 30)
        #expect(background.change == AppStateChange(app: mail, old: .inactive, new: .background))
        #expect(book.knownApps == [mail])
        #expect(book.owners == [":1.5"])
    }

    @Test func sameStateIsNoChangeButMovesTheOwner() throws {
        var book = AppBook()
        _ = try book.report(.background, for: mail, by: ":1.5", at: 0)
        let again = try book.report(.background, for: mail, by: ":1.9", at: 1)
        #expect(again.change == nil)
        #expect(again.activation == nil)
        #expect(book.owner(of: mail) == ":1.9")
        #expect(book.owners == [":1.9"])
        #expect(book.ownerLeft(":1.5").isEmpty)
        #expect(book.state(of: mail) == .background)
    }

    @Test func everyDidBecomeActiveIsAnActivation() throws {
        var book = AppBook()
        _ = try book.report(.active, for: mail, by: ":1.5", at: 100)
        let again = try book.report(.active, for: mail, by: ":1.5", at: 200)
        #expect(again.change == nil)
        #expect(again.activation == Activation(app: mail, at: 200))
        _ = try book.report(.active, for: mail, by: ":1.5", at: 200)
        #expect(book.activations(of: mail).map(\.at) == [100, 200, 200])
    }

    @Test func ownerLeavingMakesItsAppsNotRunning() throws {
        var book = AppBook()
        _ = try book.report(.active, for: mail, by: ":1.5", at: 0)
        _ = try book.report(.background, for: files, by: ":1.5", at: 0)
        _ = try book.report(.inactive, for: maps, by: ":1.7", at: 0)
        #expect(book.owners == [":1.5", ":1.7"])

        let changes = book.ownerLeft(":1.5")
        #expect(
            changes == [
                AppStateChange(app: mail, old: .active, new: .notRunning),
                AppStateChange(app: files, old: .background, new: .notRunning),
            ])
        #expect(book.state(of: mail) == .notRunning)
        #expect(book.owner(of: mail) == nil)
        #expect(book.state(of: maps) == .inactive)
        #expect(book.owners == [":1.7"])
        #expect(book.ownerLeft(":1.5").isEmpty)
        #expect(book.ownerLeft(":1.99").isEmpty)
        // The activation keeps the app known after it stopped; the other one is forgotten.
        #expect(book.knownApps == [mail, maps])
    }

    @Test func anAppTakenOverIsNotStoppedByItsFormerOwner() throws {
        var book = AppBook()
        _ = try book.report(.active, for: mail, by: ":1.5", at: 0)
        _ = try book.report(.inactive, for: mail, by: ":1.6", at: 1)
        #expect(book.owners == [":1.6"])
        #expect(book.ownerLeft(":1.5").isEmpty)
        #expect(book.ownerLeft(":1.6") == [AppStateChange(app: mail, old: .inactive, new: .notRunning)])
    }

    @Test func reportingNotRunningReleasesTheApp() throws {
        var book = AppBook()
        _ = try book.report(.background, for: mail, by: ":1.5", at: 0)
        let stopped = try book.report(.notRunning, for: mail, by: ":1.5", at: 1)
        #expect(stopped.change == AppStateChange(app: mail, old: .background, new: .notRunning))
        #expect(stopped.activation == nil)
        #expect(book.owner(of: mail) == nil)
        #expect(book.owners.isEmpty)
        #expect(book.knownApps.isEmpty)
        #expect(try book.report(.notRunning, for: mail, by: ":1.5", at: 2).change == nil)
    }

    @Test func historyKeepsTheNewestActivations() throws {
        var book = AppBook()
        let kept = AppBook.activationsKeptPerApp
        for time in 0..<kept {
            #expect(try book.report(.active, for: mail, by: ":1.5", at: Microseconds(time)).droppedActivations == 0)
        }
        let next = try book.report(.active, for: mail, by: ":1.5", at: Microseconds(kept))
        #expect(next.droppedActivations == 1)
        let history = book.activations(of: mail)
        #expect(history.count == kept)
        #expect(history.first == Activation(app: mail, at: 1))
        #expect(history.last == Activation(app: mail, at: Microseconds(kept)))
        #expect(book.activations(of: maps).isEmpty)
    }

    @Test func anActivationFromASetBackClockGoesInTimeOrder() throws {
        var book = AppBook()
        for time: Microseconds in [10, 30] { _ = try book.report(.active, for: mail, by: ":1.5", at: time) }
        let earlier = try book.report(.active, for: mail, by: ":1.5", at: 20)
        #expect(earlier.activation == Activation(app: mail, at: 20))
        #expect(book.activations(of: mail).map(\.at) == [10, 20, 30])

        // Older than everything kept: recorded and dropped at once, as the store's trim would.
        let kept = (1...AppBook.activationsKeptPerApp).map { Activation(app: mail, at: 100 + Microseconds($0)) }
        var full = AppBook(restoring: kept)
        let stale = try full.report(.active, for: mail, by: ":1.5", at: 5)
        #expect(stale.droppedActivations == 1)
        #expect(full.activations(of: mail).first?.at == 101)
    }

    @Test func restoringSortsAndBoundsTheHistoryAndNothingRuns() {
        let kept = AppBook.activationsKeptPerApp
        var stored = (0..<(kept + 5)).reversed().map { Activation(app: mail, at: Microseconds($0)) }
        stored += [Activation(app: maps, at: 7), Activation(app: maps, at: 3)]
        let book = AppBook(restoring: stored)
        #expect(book.activations(of: mail).count == kept)
        #expect(book.activations(of: mail).first?.at == 5)
        #expect(book.activations(of: maps).map(\.at) == [3, 7])
        #expect(book.state(of: mail) == .notRunning)
        #expect(book.owners.isEmpty)
        #expect(book.knownApps == [mail, maps])
        #expect(AppBook(restoring: []) == AppBook())
    }

    @Test func appsAreAPartOfTheStateSnapshot() throws {
        var state = NotifydState()
        #expect(state.apps == AppBook())
        let snapshot = state
        _ = try state.apps.report(.active, for: mail, by: ":1.5", at: 0)
        #expect(state != snapshot)
        #expect(NotifydState(apps: state.apps) == state)
    }

    @Test func storedHistoriesAreSortedAndBoundedLikeRows() {
        let kept = AppBook.activationsKeptPerApp
        let unsorted: [Microseconds] = [5, 3, 4]
        let tooMany = (0..<Microseconds(kept + 5)).map { $0 }
        let book = AppBook(restoringHistories: [mail: unsorted, maps: tooMany, files: []])
        #expect(book.activations(of: mail).map(\.at) == [3, 4, 5])
        #expect(book.activations(of: maps).map(\.at) == Array(5..<Microseconds(kept + 5)))
        #expect(book.knownApps == [mail, maps], "an empty history is no history")
        let fromRows = AppBook(restoring: (unsorted.map { Activation(app: mail, at: $0) } + tooMany.map { Activation(app: maps, at: $0) }))
        #expect(fromRows == book)
    }
}
