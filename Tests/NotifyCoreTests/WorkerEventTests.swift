import NotifyCore
import Testing

@Suite struct WorkerEventTests {
    @Test func memberwiseDefaultsMatchAnEmptyDictionary() throws {
        let event = WorkerEvent()
        #expect(try WorkerEvent(validating: [:]) == event)
        #expect(event.kind == .finished)
        #expect(event.badge == 1)
        #expect(event.notify)
        #expect(event.timeout == nil)
        #expect(event.result == nil)
    }

    @Test(arguments: [
        (EventKind.finished, FetchResult?.none, Int32(1)),
        (.failed, nil, 1),
        (.progress, nil, 0),
        (.fetch, nil, 1),
        (.fetch, .newData, 1),
        (.fetch, .noData, 0),
        (.fetch, .failed, 0),
    ])
    func badgeDefaultsByKind(kind: EventKind, result: FetchResult?, badge: Int32) {
        #expect(WorkerEvent(kind: kind, result: result).badge == badge)
        #expect(WorkerEvent.defaultBadge(kind: kind, result: result) == badge)
    }

    @Test func explicitBadgeWins() {
        #expect(WorkerEvent(kind: .finished, badge: 0).badge == 0)
        #expect(WorkerEvent(kind: .progress, badge: 5).badge == 5)
        #expect(WorkerEvent(kind: .fetch, result: .noData, badge: -2).badge == -2)
    }

    @Test func fetchWithoutResultMeansNewData() {
        #expect(WorkerEvent(kind: .fetch).result == .newData)
        #expect(WorkerEvent(kind: .finished).result == nil)
    }

    @Test func storesHandlerForEveryKindButProgress() {
        #expect(EventKind.allCases.filter { WorkerEvent(kind: $0).storesHandler } == [.finished, .failed, .fetch])
    }

    @Test func progressFraction() {
        #expect(WorkerEvent(kind: .progress).progressFraction == nil)
        #expect(WorkerEvent(kind: .progress, bytesWritten: 5).progressFraction == nil)
        #expect(WorkerEvent(kind: .progress, bytesWritten: 5, bytesExpected: 0).progressFraction == nil)
        #expect(WorkerEvent(kind: .progress, bytesWritten: 50, bytesExpected: 200).progressFraction == 0.25)
        #expect(WorkerEvent(kind: .progress, bytesExpected: 200).progressFraction == 0)
        #expect(WorkerEvent(kind: .progress, bytesWritten: 300, bytesExpected: 200).progressFraction == 1)
        #expect(WorkerEvent(kind: .progress, bytesWritten: .max, bytesExpected: .max).progressFraction == 1)
    }
}
