"""The body of scripts/memory-bound, run inside dbus-run-session (a bus of
its own): writes a state database with every documented limit filled,
starts notifyd on it, begins the 4,096 tasks, and reads its memory."""
import os, signal, sqlite3, subprocess, sys, time

import dbus

STATE = os.environ["NOTIFYD_MB_STATE"]
NOTIFYD = os.environ["NOTIFYD_MB_NOTIFYD"]
BOUND_MB = int(os.environ["NOTIFYD_MB_BOUND"])
BUS_NAME, PATH = "org.notifyd.Notifyd1", "/org/notifyd/Notifyd1"
APPS = 10_000                 # apps with a schedule, a history, activations, a badge
FETCHES_PER_APP = 100
ACTIVATIONS_PER_APP = 1_000
PENDING, PENDING_PER_APP = 100_000, 10_000
FINISHED_KEPT = 1_000
TASKS, TASKS_PER_APP = 4_096, 16
PUSH_REGISTRATIONS, PUSH_PER_APP, PUSH_HELD, PUSH_BYTES = 1_000, 100, 100, 4_096
bus = dbus.SessionBus()


def start():
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS="unix:path=" + os.path.join(STATE, "..", "no-system-bus"))
    log = open(os.path.join(STATE, "..", "notifyd.log"), "a")
    process = subprocess.Popen([NOTIFYD, "--state-dir", STATE], env=env, stdout=log, stderr=log)
    began = time.monotonic()
    while not bus.name_has_owner(BUS_NAME):
        if process.poll() is not None:
            sys.exit(f"memory-bound: notifyd ended with {process.returncode}; see its log")
        if time.monotonic() - began > 600:
            sys.exit("memory-bound: notifyd did not take its name within 600 s")
        time.sleep(0.2)
    return process, time.monotonic() - began


def stop(process):
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=60)


def memory(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            fields[key] = value.split()[0] if value.split() else ""
    return {key: int(fields[key]) / 1024 for key in ("VmRSS", "RssAnon", "VmHWM")}


def app(kind, index):
    return f"org.notifyd.Bound.{kind}{index}"


def fill(database):
    now = int(time.time() * 1_000_000)
    day = 86_400 * 1_000_000
    db = sqlite3.connect(database)
    db.execute("PRAGMA journal_mode = WAL")
    with db:
        db.executemany("INSERT INTO badges (app_id, count) VALUES (?, 1)", ((app("A", i),) for i in range(APPS)))
        db.executemany(
            "INSERT INTO fetch_schedules VALUES (?, 3600, 1, ?, 'no-data', ?, 0, 1)",
            ((app("A", i), now - 3_600_000_000, FETCHES_PER_APP) for i in range(APPS)))
        db.executemany(
            "INSERT INTO fetches (id, app_id, trigger, started_us, deadline_us, ended_us, result) "
            "VALUES (?, ?, 'scheduled', ?, ?, ?, 'no-data')",
            ((1 + i * FETCHES_PER_APP + n, app("A", i), now - day + n * 600_000_000,
              now - day + n * 600_000_000 + 30_000_000, now - day + n * 600_000_000 + 1_000_000)
             for i in range(APPS) for n in range(FETCHES_PER_APP)))
        # Activations over the last 8 days, one every 11.5 minutes.
        db.executemany(
            "INSERT INTO activations (app_id, at_us) VALUES (?, ?)",
            ((app("A", i), now - 8 * day + n * 691_200_000) for i in range(APPS) for n in range(ACTIVATIONS_PER_APP)))
        sessions = ((f"bound-pending-{n}", app("P", n // PENDING_PER_APP), 1, now, None, None, None, 0, None)
                    for n in range(PENDING))
        finished = ((f"bound-finished-{n}", app("F", 0), 1, now - n, None, None, None, 0, "completed")
                    for n in range(FINISHED_KEPT))
        db.executemany("INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", sessions)
        db.executemany("INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", finished)
        db.executemany(
            "INSERT INTO handlers (id, session_id, app_id, stored_at_us, deadline_us) VALUES (?, ?, ?, ?, ?)",
            ((n + 1, f"bound-pending-{n}", app("P", n // PENDING_PER_APP), now, now + day) for n in range(PENDING)))
        db.execute("INSERT OR REPLACE INTO counters (name, value) VALUES ('last_handler_id', ?)", (PENDING,))
        # UnifiedPush: 1,000 registrations of apps that are not installed,
        # each with 100 messages of 4,096 bytes held (410 MB of bodies).
        db.executemany(
            "INSERT INTO push_registrations (token, app_id, server_key, description, connector, messages) "
            "VALUES (?, ?, ?, '', 2, 0)",
            ((f"bound-{r}", app("U", r // PUSH_PER_APP), r.to_bytes(32, "big")) for r in range(PUSH_REGISTRATIONS)))
        body = bytes(range(256)) * (PUSH_BYTES // 256)
        db.executemany(
            "INSERT INTO push_messages (id, token, server_id, body, received_us) VALUES (?, ?, '', ?, ?)",
            ((1 + r * PUSH_HELD + n, f"bound-{r}", body, now - 60_000_000)
             for r in range(PUSH_REGISTRATIONS) for n in range(PUSH_HELD)))
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def main():
    process, _ = start()  # creates the schema
    fresh = memory(process.pid)
    stop(process)
    began = time.monotonic()
    fill(os.path.join(STATE, "state.sqlite3"))
    size = os.path.getsize(os.path.join(STATE, "state.sqlite3")) / 1024 / 1024
    print(f"memory-bound: database written in {time.monotonic() - began:.0f} s, {size:.0f} MB", flush=True)
    process, seconds = start()
    time.sleep(2)
    loaded = memory(process.pid)
    tasks = dbus.Interface(bus.get_object(BUS_NAME, PATH), "org.notifyd.Notifyd1.Tasks")
    for n in range(TASKS):
        tasks.BeginBackgroundTask(app("T", n // TASKS_PER_APP), "memory-bound")
    time.sleep(2)
    daemon = dbus.Interface(bus.get_object(BUS_NAME, PATH), "org.freedesktop.DBus.Properties")
    pending = int(daemon.Get("org.notifyd.Notifyd1.Daemon", "PendingHandlers"))
    push = dbus.Interface(bus.get_object(BUS_NAME, PATH), "org.notifyd.Notifyd1.Push")
    held = int(push.GetStatus()["pending-messages"])
    full = memory(process.pid)
    stop(process)
    print(f"memory-bound: fresh notifyd: VmRSS {fresh['VmRSS']:.1f} MB, RssAnon {fresh['RssAnon']:.1f} MB")
    print(f"memory-bound: every limit filled, loaded in {seconds:.1f} s: VmRSS {loaded['VmRSS']:.1f} MB, "
          f"RssAnon {loaded['RssAnon']:.1f} MB")
    print(f"memory-bound: and {TASKS} tasks: VmRSS {full['VmRSS']:.1f} MB, RssAnon {full['RssAnon']:.1f} MB, "
          f"peak VmHWM {full['VmHWM']:.1f} MB; {pending} pending handlers, {held} push messages held")
    if pending != PENDING:
        sys.exit(f"memory-bound: notifyd holds {pending} pending handlers, not {PENDING}")
    if held != PUSH_REGISTRATIONS * PUSH_HELD:
        sys.exit(f"memory-bound: notifyd holds {held} push messages, not {PUSH_REGISTRATIONS * PUSH_HELD}")
    worst = max(full["VmRSS"], full["VmHWM"])
    verdict = "within" if worst <= BOUND_MB else "ABOVE"
    print(f"memory-bound: {worst:.1f} MB {verdict} the bound of {BOUND_MB} MB")
    sys.exit(0 if worst <= BOUND_MB else 1)


main()
