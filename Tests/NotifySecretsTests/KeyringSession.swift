import Glibc
import NotifyTesting
import Synchronization

/// The answers a keeper gave, kept for the test thread to wait on (the
/// keeper answers on its own thread).
final class Answers<Answer: Sendable>: Sendable {
    private let answers = Mutex<[Answer]>([])

    func record(_ answer: Answer) { answers.withLock { $0.append(answer) } }

    /// Waits (bounded) for the next answer after the `count` already taken.
    func wait(_ what: String, count: Int, seconds: Double = 30) throws -> Answer {
        var answer: Answer?
        try waitUntil(what, seconds: seconds) {
            answer = answers.withLock { $0.count > count ? $0[count] : nil }
            return answer != nil
        }
        return answer!
    }
}

/// Runs `start` with a closure that records its answer, and waits for it.
func answer<Answer: Sendable>(
    _ what: String, seconds: Double = 30, _ start: (@escaping @Sendable (Answer) -> Void) -> Void
) throws -> Answer {
    let answers = Answers<Answer>()
    start { answers.record($0) }
    return try answers.wait(what, count: 0, seconds: seconds)
}
