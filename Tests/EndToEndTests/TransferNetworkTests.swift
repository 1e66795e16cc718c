import Foundation
import Glibc
import NotifyTesting
import Testing

/// A network that goes away and comes back, for real: notifyd and nginx
/// run in a network namespace of their own (`unshare -n`, with a user
/// namespace when not root), where GIO's netlink monitor sees the default
/// route go and come as the script deletes and adds it. The download is
/// held while there is no network (no attempt spent), goes on at once
/// when it returns, and arrives byte for byte. Slow, once by nginx's
/// `limit_rate` and once by the kernel: a token bucket on the namespace's
/// link (`tc qdisc ... tbf`; this kernel has no `netem`, so no loss).
@Suite struct TransferNetworkTests {
    static let script = #"""
        set -u
        ip link set lo up
        ip route add default dev lo
        # A token bucket passes no packet larger than its burst: the link
        # gets an Ethernet MTU first (loopback's is 64 KiB).
        if [ -n "${SHAPE:-}" ]; then ip link set lo mtu 1500 && tc qdisc add dev lo root $SHAPE || exit 1; fi
        nginx -p "$NGINX_DIR/" -c "$NGINX_DIR/nginx.conf" -e stderr -g 'daemon off;' 2> "$NGINX_DIR/ns.out" &
        server=$!
        "$NOTIFYD" --state-dir "$STATE" --verbose 2> "$LOG" &
        daemon=$!
        call() {
            member=$1; shift
            gdbus call --session --dest org.notifyd.Notifyd1 --object-path /org/notifyd/Notifyd1 \
                --method "org.notifyd.Notifyd1.Transfers.$member" "$@"
        }
        # wait_for DESCRIPTION COMMAND...: up to 60 s for COMMAND to succeed.
        wait_for() {
            what=$1; shift
            tries=0
            until "$@" >/dev/null 2>&1; do
                tries=$((tries + 1))
                if [ "$tries" -ge 1200 ]; then echo "timed out: $what"; call GetTransfer 1; kill "$daemon" "$server"; exit 1; fi
                sleep 0.05
            done
        }
        has() { call GetTransfer 1 | grep -q -- "$1"; }
        wait_for "notifyd answers" call ListTransfers
        wait_for "nginx answers" curl -sI -o /dev/null "http://127.0.0.1:$PORT/big.bin"
        call Download org.example.Fetcher net "http://127.0.0.1:$PORT/$URL_PATH" "$TARGET" "{}" > /dev/null
        wait_for "bytes arrive" has "'bytes-done': <uint64 [1-9]"
        ip route del default dev lo
        wait_for "the transfer waits for a network" has "waiting for a network"
        has "'attempts': <uint32 1>" && echo "held after one attempt"
        ip route add default dev lo
        wait_for "the transfer completes" has "'state': <'completed'>"
        has "'attempts': <uint32 2>" && echo "one attempt more once the network returned"
        cmp -s "$TARGET" "$ORIGINAL" && echo "identical"
        if [ -n "${SHAPE:-}" ]; then
            tc -s qdisc show dev lo | grep -qE "Sent [0-9]{7,} bytes" && echo "through the token bucket"
        fi
        kill "$daemon" "$server"
        wait "$daemon"
        echo "exit $?"
        """#

    @Test func aDownloadWaitsForTheNetworkAndGoesOnWhenItReturns() throws {
        try Self.runScript(urlPath: "slow/big.bin", shape: nil)
    }

    /// The link itself slow: 4 Mbit/s through a token bucket filter on the
    /// namespace's loopback, the whole file served at once by nginx.
    @Test func overASlowLinkTheSameHolds() throws {
        try Self.runScript(urlPath: "big.bin", shape: "tbf rate 4mbit burst 16kb latency 400ms")
    }

    /// Runs ``script`` in a network namespace of its own and checks what it printed.
    static func runScript(urlPath: String, shape: String?) throws {
        let server = try NginxServer()
        server.addLocations(["location /slow/ { alias \(server.root.path)/; limit_rate 512k; }"])
        server.stop()
        let original = TransferEndToEndTests.randomBytes(3_000_000)
        try server.serve(original, at: "big.bin")
        // The configuration is written by start(); nginx runs in the namespace instead.
        try server.start()
        server.stop()
        let bus = try TestBus()
        let directory = try makeTemporaryDirectory(prefix: "notifyd-transfer-netns")
        let namespace = getuid() == 0 ? ["/usr/bin/unshare", "-n"] : ["/usr/bin/unshare", "-r", "-n"]
        let target = directory.appendingPathComponent("big.bin")
        let result = try runProcess(
            namespace[0], Array(namespace.dropFirst()) + ["/bin/sh", "-c", Self.script],
            environment: [
                "DBUS_SESSION_BUS_ADDRESS": bus.address, "NOTIFYD": Executables.notifyd,
                "STATE": directory.appendingPathComponent("state").path,
                "LOG": directory.appendingPathComponent("notifyd.log").path, "NGINX_DIR": server.directory.path,
                "PORT": "\(server.httpPort)", "TARGET": target.path,
                "ORIGINAL": server.root.appendingPathComponent("big.bin").path,
                "PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "URL_PATH": urlPath, "SHAPE": shape ?? "",
            ])
        let log = (try? String(contentsOf: directory.appendingPathComponent("notifyd.log"), encoding: .utf8)) ?? ""
        let shaped = shape == nil ? [] : ["through the token bucket"]
        #expect(result.stdout.split(separator: "\n").map(String.init) == [
            "held after one attempt", "one attempt more once the network returned", "identical",
        ] + shaped + ["exit 0"], "\(result.stdout)\(result.stderr)\n\(log.suffix(3000))")
    }
}
