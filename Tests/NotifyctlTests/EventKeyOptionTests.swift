import ArgumentParser
import DBus
import NotifyCore
import Testing

@testable import notifyctl

/// Every key of the event table (``WorkerEventKey``) is reachable from
/// `notifyctl event`'s options, or says why not; each option sets its key
/// with the key's type, and the fast path takes every string option.
@Suite struct EventKeyOptionTests {
    /// The event dictionary `notifyctl event s --app a ARGUMENTS` sends.
    private func dictionary(_ arguments: [String]) throws -> [String: DBusValue] {
        let command = try NotifyctlCommand.parseAsRoot(["event", "s", "--app", "a"] + arguments)
        return try #require(command as? Event).event.dictionary(currentDirectory: "/home/u")
    }

    @Test(arguments: WorkerEventKey.allCases)
    func everyKeyHasAnOptionOrAReason(_ key: WorkerEventKey) throws {
        switch EventKeyOption(key) {
        case .text(let option, _):
            let value = key.bound == .absolutePath ? "/tmp/x" : "word"
            #expect(try dictionary([option, value])[key.name] == .string(value))
            #expect(FastPath.eventStringOptions.contains(option))
        case .other(let options, let example):
            #expect(options.contains(example[0]), "the example uses one of the options")
            let value = try #require(try dictionary(example)[key.name], "\(example) does not set \(key.name)")
            #expect(value.signature == key.type.signature)
        case .notExposed(let reason):
            #expect(!reason.isEmpty)
        }
    }

    @Test func fastPathTakesTheStringOptionsAndTheApp() {
        #expect(
            FastPath.eventStringOptions
                == ["--app", "--failed", "--title", "--summary", "--body", "--path", "--uri", "--sound"])
    }

    /// What notifyctl refuses as bad usage follows the table's bounds.
    @Test func choicesAndRangesAreTheTables() throws {
        guard case .oneOf(let results) = WorkerEventKey.result.bound,
            case .range(let timeouts, _) = WorkerEventKey.timeout.bound
        else {
            Issue.record("result and timeout lost their bounds")
            return
        }
        #expect(FetchResult.allValueStrings == results)
        for result in results { #expect(try dictionary(["--fetch", result])["result"] == .string(result)) }
        #expect(try dictionary(["--timeout", "\(timeouts.upperBound)"])["timeout"] == .uint32(UInt32(timeouts.upperBound)))
        #expect(throws: (any Error).self) { try dictionary(["--timeout", "\(timeouts.upperBound + 1)"]) }
        #expect(throws: (any Error).self) { try dictionary(["--timeout", "\(timeouts.lowerBound - 1)"]) }
    }
}
