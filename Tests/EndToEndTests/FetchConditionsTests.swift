import Foundation
import NotifyTesting
import Testing

/// The network holds scheduled fetches, for real: notifyd runs in a network
/// namespace of its own (`unshare -n`, with a user namespace when not
/// root), where GIO's netlink monitor sees the default route come and go
/// as the test adds and deletes it. The callers run in the namespace too,
/// so notifyd can read their /proc entries and tell who they are.
@Suite struct FetchConditionsTests {
    /// The script the namespace runs: each step waits (bounded) for what
    /// notifyd says, and prints a line the test checks.
    static let script = #"""
        set -u
        ip link set lo up
        "$NOTIFYD" --state-dir "$STATE" --fetch-minimum 2 --verbose 2> "$LOG" &
        daemon=$!
        call() {
            member=$1; shift
            gdbus call --session --dest org.notifyd.Notifyd1 --object-path /org/notifyd/Notifyd1 \
                --method "org.notifyd.Notifyd1.Fetch.$member" "$@"
        }
        # wait_for DESCRIPTION COMMAND...: up to 20 s for COMMAND to succeed.
        wait_for() {
            what=$1; shift
            tries=0
            until "$@" >/dev/null 2>&1; do
                tries=$((tries + 1))
                if [ "$tries" -ge 400 ]; then echo "timed out: $what"; kill "$daemon"; exit 1; fi
                sleep 0.05
            done
        }
        schedule_has() { call GetFetchSchedule org.example.Feeds | grep -q "$1"; }
        wait_for "notifyd answers" call GetFetchSchedule org.example.Feeds
        call SetFetchInterval org.example.Feeds 1 >/dev/null
        wait_for "the fetch waits for a network" schedule_has "'waiting-for': <'a network connection'>"
        call GetFetchSchedule org.example.Feeds | grep -q "'running': <uint64 0>" && echo "held, none running"
        call GetFetchSchedule org.example.Feeds | grep -o "due, and waiting for a network connection"
        ip route add default dev lo
        wait_for "the fetch starts with a network" schedule_has "'running': <uint64 1>"
        echo "started with the network"
        call CompleteFetch 1 new-data >/dev/null
        ip route del default dev lo
        wait_for "notifyd sees the network go" grep -q "wait for a network connection" "$LOG"
        call FetchNow org.example.Feeds | grep -q "uint64 2" && echo "FetchNow runs without a network"
        kill "$daemon"
        wait "$daemon"
        echo "exit $?"
        """#

    @Test func aDueFetchWaitsForTheNetworkAndStartsWhenItComes() throws {
        let bus = try TestBus()
        let directory = try makeTemporaryDirectory(prefix: "notifyd-netns")
        let namespace = getuid() == 0 ? ["/usr/bin/unshare", "-n"] : ["/usr/bin/unshare", "-r", "-n"]
        let result = try runProcess(
            namespace[0], Array(namespace.dropFirst()) + ["/bin/sh", "-c", Self.script],
            environment: [
                "DBUS_SESSION_BUS_ADDRESS": bus.address, "NOTIFYD": Executables.notifyd,
                "STATE": directory.appendingPathComponent("state").path,
                "LOG": directory.appendingPathComponent("notifyd.log").path,
            ])
        let log = (try? String(contentsOf: directory.appendingPathComponent("notifyd.log"), encoding: .utf8)) ?? ""
        #expect(result.stdout.split(separator: "\n") == [
            "held, none running", "due, and waiting for a network connection", "started with the network",
            "FetchNow runs without a network", "exit 0",
        ], "\(result.stdout)\(result.stderr)\n\(log)")
        #expect(log.contains("fetch conditions: scheduled fetches wait for a network connection"))
        #expect(log.contains("fetch conditions: nothing holds scheduled fetches"))
    }
}
