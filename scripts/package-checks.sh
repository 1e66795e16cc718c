#!/bin/bash
# The checks of the installed package, run inside the clean Debian root that
# scripts/test-package makes (as root there; the user is alice). One line per
# check: `ok - WHAT` or `not ok - WHAT` followed by what it printed.
#
#   package-checks.sh fresh DEB            install, use, remove, purge; with
#                                          Debian's Firefox ESR and Chromium
#                                          (headless): their downloads reach
#                                          notifyd, and purging takes the
#                                          extension away
#   package-checks.sh upgrade OLD_DEB DEB  state made by OLD_DEB survives DEB
set -u
cd /root || exit 1
export DEBIAN_FRONTEND=noninteractive

check() {
    local what=$1
    shift
    if "$@" >/tmp/check.out 2>&1; then
        echo "ok - $what"
    else
        echo "not ok - $what"
        tail -20 /tmp/check.out | sed 's/^/#   /'
    fi
}
# The command's output must be exactly the text.
equals() {
    local text=$1 output
    shift
    output=$("$@" 2>&1) || { printf '%s\n' "$output"; return 1; }
    [ "$output" = "$text" ] || { printf 'expected "%s", got "%s"\n' "$text" "$output"; return 1; }
}
# The command's output must contain the text.
says() {
    local text=$1 output
    shift
    output=$("$@" 2>&1) || { printf '%s\n' "$output"; return 1; }
    grep -qF -- "$text" <<<"$output" || { printf 'expected "%s" in:\n%s\n' "$text" "$output"; return 1; }
}
as_alice() {
    runuser -u alice -- env -i HOME=/home/alice PATH=/usr/bin:/bin LANG=C.UTF-8 \
        DBUS_SESSION_BUS_ADDRESS="$bus" "$@"
}

# A session bus as a login would start it: the stock session.conf, which
# finds /usr/share/dbus-1/services/org.notifyd.Notifyd1.service.
start_session() {
    id alice >/dev/null 2>&1 || useradd --create-home alice
    bus=$(runuser -u alice -- env -i HOME=/home/alice PATH=/usr/bin:/bin \
        dbus-daemon --config-file=/usr/share/dbus-1/session.conf --fork --print-address=1)
    export bus
}
# A pipeline as one check: check WHAT in_bash 'as_alice ... | jq ...'
in_bash() { bash -o pipefail -c "$1"; }
end_session() {
    pkill -TERM -u alice -x notifyd
    for _ in $(seq 50); do pgrep -u alice -x notifyd >/dev/null || break; sleep 0.1; done
    pkill -TERM -u alice -x dbus-daemon
}
notifyd_activated() {
    local pid
    pid=$(pgrep -u alice -x notifyd) || { echo "no notifyd runs"; return 1; }
    # The bus gives what it activates DBUS_STARTER_ADDRESS (the process
    # itself is handed to init by the bus's double fork).
    tr '\0' '\n' <"/proc/$pid/environ" | grep -qx "DBUS_STARTER_ADDRESS=$bus"
}
export -f as_alice
tab_completes() {  # WORD...: what bash offers after `notifyctl WORD... <TAB>`
    # shellcheck disable=SC2016 # expanded by the inner bash
    as_alice bash -c '
        source /usr/share/bash-completion/bash_completion
        _completion_loader notifyctl
        COMP_WORDS=(notifyctl "$@" ""); COMP_CWORD=$(($# + 1))
        COMP_LINE="notifyctl $* "; COMP_POINT=${#COMP_LINE}
        function=$(complete -p notifyctl | sed -n "s/.* -F \([^ ]*\) .*/\1/p")
        "$function" notifyctl "" "${COMP_WORDS[COMP_CWORD - 1]}"
        printf "%s\n" "${COMPREPLY[@]}"' completion "$@"
}
browser_reports() {  # a completed download, framed as a browser sends it to the host
    local message='{"type":"download","download":{"id":1,"startTime":"2026-01-01T00:00:00Z","state":"complete","filename":"/home/alice/Downloads/debian-12.iso"}}'
    local n=${#message} header
    header=$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((n & 255)) $((n >> 8 & 255)) 0 0)
    # shellcheck disable=SC2059 # the header is the format: its escapes are the length's bytes
    printf "$header%s" "$message" | as_alice env NOTIFYD_BROWSER_APP_ID=firefox-esr /usr/lib/notifyd/notifyd-browser-host
}
fetch_completes() {  # APP RESULT: the running fetch (the schedule's first starts at once), else FetchNow, completed
    local id
    id=$(as_alice notifyctl fetch show "$1" --json | jq -r '.running // empty')
    [ -n "$id" ] || id=$(as_alice notifyctl fetch now "$1") || return 1
    as_alice notifyctl fetch complete "$id" "$2"
}

# Whether notifyd (alice's) has libstrophe mapped: it is loaded with dlopen
# when an XMPP server is set (Sources/CStrophe), so dh_shlibdeps does not see it.
strophe_mapped() { grep -q 'libstrophe\.so' "/proc/$(pgrep -u alice -x notifyd)/maps"; }
strophe_not_mapped() { ! strophe_mapped; }

# An XMPP server that refuses the connection (port 9 on 127.0.0.1): the
# attempt is libstrophe's, so it ends disconnected for the connection's
# reason, not for a library that could not be loaded.
xmpp_attempt_is_made() {
    local status
    # shellcheck disable=SC2016 # alice's $HOME, expanded by her shell
    as_alice sh -c 'umask 077 && printf "pass\n" >"$HOME/push.pass"' || return 1
    as_alice notifyctl push server xmpp alice@localhost --host 127.0.0.1 --port 9 \
        --password-file /home/alice/push.pass || return 1
    wait_for 30 says disconnected as_alice notifyctl push status || return 1
    status=$(as_alice notifyctl push status) || return 1
    echo "$status"
    case "$status" in *"could not be loaded"*) return 1 ;; esac
    strophe_mapped
}

# --- Debian's browsers, headless, with the package's extension ---------------
# Nothing of the test's own goes into the browsers: no extension flag and no
# preference. Firefox ESR runs on a --profile directory; Chromium through
# Debian's /usr/bin/chromium (whose /etc/chromium.d/extensions adds
# --load-extension with every directory of /usr/share/chromium/extensions),
# with --no-sandbox (no user namespaces in this root) and
# --remote-debugging-port=0 (it writes the port it took to the profile's
# DevToolsActivePort). The files come from scripts/package-browser/
# (/opt/package-browser here): serve.py, a download server on 127.0.0.1
# (Content-Disposition: attachment, so both browsers save to ~/Downloads,
# the XDG default, without asking), and notifications.py, a notification
# server that records each popup notifyd posts.
helpers=/opt/package-browser
downloads=/home/alice/Downloads
notes=/tmp/notifications.jsonl
monitor_log=/tmp/monitor.jsonl
chromium_extension=khdbmcmnoolejdfdmlgcgiiafanjhbkc

# Until the command succeeds, at most SECONDS: wait_for SECONDS COMMAND...
# On time out, the command runs once more with its output shown.
wait_for() {
    local deadline=$((SECONDS + $1))
    shift
    until "$@" >/dev/null 2>&1; do
        if [ "$SECONDS" -ge "$deadline" ]; then
            "$@"
            echo "(still not so after the deadline)"
            return 1
        fi
        sleep 0.2
    done
}
# A daemon of the checks, as alice, in the background: its PID in $!.
as_alice_in_background() {
    runuser -u alice -- env -i HOME=/home/alice PATH=/usr/bin:/bin LANG=C.UTF-8 \
        DBUS_SESSION_BUS_ADDRESS="${bus:-}" "$@" &
}
# The download server; its address in $server.
start_server() {
    rm -f /tmp/serve.port
    python3 "$helpers/serve.py" /tmp/serve.port 2>>/tmp/serve.log &
    server_pid=$!
    wait_for 10 test -s /tmp/serve.port || return 1
    server="http://127.0.0.1:$(cat /tmp/serve.port)"
}
# The notification server, on the session bus; each popup a line of $notes.
start_notification_server() {
    rm -f "$notes"
    as_alice_in_background python3 "$helpers/notifications.py" "$notes" >>/tmp/notifications.log 2>&1
    notification_server_pid=$!
    wait_for 10 test -e "$notes"
}
# notifyctl monitor --json, from now on, into $monitor_log.
start_monitor() {
    as_alice_in_background notifyctl monitor --json >"$monitor_log" 2>>/tmp/monitor.err
    monitor_pid=$!
}
stop_daemons() {  # the monitor, the notification server, the download server: those that run
    local pid
    for pid in ${monitor_pid:-} ${notification_server_pid:-} ${server_pid:-}; do
        kill -TERM "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    monitor_pid="" notification_server_pid="" server_pid=""
}

# Starts BROWSER (firefox-esr or chromium) headless as alice on PROFILE
# (its --profile, or --user-data-dir) with the arguments, in a process group
# of its own ($browser_pid), its output appended to /tmp/BROWSER.log.
browser_start() {
    local browser=$1 profile=$2 command
    shift 2
    case $browser in
        firefox-esr) command=(firefox-esr --headless --profile "$profile") ;;
        chromium)
            rm -f "$profile/DevToolsActivePort"
            command=(/usr/bin/chromium --headless=new --no-sandbox --user-data-dir="$profile" --remote-debugging-port=0)
            ;;
    esac
    runuser -u alice -- mkdir -p "$profile"
    echo "== $(date +%T) ${command[*]} $*" >>"/tmp/$browser.log"
    setsid runuser -u alice -- env -i HOME=/home/alice PATH=/usr/bin:/bin LANG=C.UTF-8 \
        DBUS_SESSION_BUS_ADDRESS="${bus:-}" "${command[@]}" "$@" >>"/tmp/$browser.log" 2>&1 &
    browser_pid=$!
}
# Ends the browser and all it started: SIGTERM to its process group (a
# headless Firefox quits only so), SIGKILL to what is left after 20 s.
browser_stop() {
    [ -n "${browser_pid:-}" ] || return 0
    kill -TERM -- "-$browser_pid" 2>/dev/null
    wait_for 20 bash -c "! kill -0 -- -$browser_pid 2>/dev/null" >/dev/null ||
        echo "# the browser's process group outlived SIGTERM for 20 s: killed" >&2
    kill -KILL -- "-$browser_pid" 2>/dev/null
    wait "$browser_pid" 2>/dev/null
    browser_pid=""
}
# NAME: the browser saved all of the file (Firefox makes the file empty at
# the start, and fills it at the end; serve.py's files are 100000 bytes).
saved() { [ "$(stat -c %s "$downloads/$1" 2>&1)" = 100000 ]; }
# APP NAME: the notification server got Download complete, NAME, with Open
# (there because the event had a path), from APP (its desktop-entry hint).
notified() {
    jq -s -e --arg app "$1" --arg name "$2" 'any(.[]; .desktop_entry == $app and .summary == "Download complete"
        and .body == $name and any(.actions[]; . == ["open", "Open"]))' "$notes"
}
# APP NAME: notifyd's finished event for APP had the saved file's path (as
# notifyctl monitor showed it) and NotificationPosted followed.
finished_with_path() {
    jq -s -e --arg app "$1" --arg name "$2" --arg path "$downloads/$2" '
        any(.[]; .member == "HandleEventsForBackgroundSession" and .args[1] == $app
            and .args[3].kind == "finished" and .args[3].title == $name and .args[3].path == $path)
        and any(.[]; .member == "NotificationPosted" and .args[0] == $app and .args[3].body == $name)' "$monitor_log"
}
# PROFILE: the targets of the running Chromium, from its DevTools port.
chromium_targets() {
    local port
    port=$(head -1 "$1/DevToolsActivePort" 2>/dev/null)
    [ -n "$port" ] || { echo "no DevToolsActivePort yet"; return 1; }
    python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' \
        "http://127.0.0.1:$port/json/list"
}
extension_worker_runs() {  # PROFILE: the extension's service worker is one of Chromium's targets
    chromium_targets "$1" | jq -e --arg url "chrome-extension://$chromium_extension/" \
        'any(.[]; .type == "service_worker" and (.url | startswith($url)))'
}
no_extension_target() {  # PROFILE: no target of Chromium is the extension's
    chromium_targets "$1" | jq -e --arg url "chrome-extension://$chromium_extension/" 'all(.[]; .url | startswith($url) | not)'
}
# PROFILE [true|false]: Firefox's add-on database for the profile has
# browser@notifyd.org active, from the system scope (true), or has no
# active browser@notifyd.org at all (false).
firefox_has_extension() {
    python3 - "$1/extensions.json" "${2:-true}" <<'PYTHON'
import json, sys
try:
    with open(sys.argv[1], encoding="utf-8") as file:
        addons = json.load(file)["addons"]
except (OSError, ValueError, KeyError) as error:
    sys.exit("cannot read %s: %s" % (sys.argv[1], error))
ours = [a for a in addons if a.get("id") == "browser@notifyd.org"]
print(json.dumps([{k: a.get(k) for k in ("location", "active", "userDisabled", "appDisabled", "path")} for a in ours]))
if sys.argv[2] == "true":
    sys.exit(0 if any(a.get("active") and a.get("location") == "app-system-share" for a in ours) else 1)
sys.exit(1 if any(a.get("active") for a in ours) else 0)
PYTHON
}
# The profile Firefox ESR makes at its first start, before notifyd is
# installed: started once on an empty page until its add-on database is
# written and its preferences record the build it scanned for add-ons
# (extensions.lastAppBuildId: without it the next start rescans anyway, and
# the check would not be of a profile made before), then ended. prefs.js is
# written some time after the add-on database: a SIGTERM between the two
# once left none (CI, stop 32).
firefox_profile_before_install=/home/alice/firefox-before-install
firefox_profile_made() {
    test -s "$1/extensions.json" && grep -q '"extensions.lastAppBuildId"' "$1/prefs.js"
}
make_firefox_profile() {
    id alice >/dev/null 2>&1 || useradd --create-home alice
    browser_start firefox-esr "$firefox_profile_before_install" about:blank
    wait_for 90 firefox_profile_made "$firefox_profile_before_install"
    local status=$?
    browser_stop
    [ "$status" -eq 0 ] || { ls -la "$firefox_profile_before_install"; tail -5 /tmp/firefox-esr.log; return 1; }
    firefox_profile_made "$firefox_profile_before_install" && ! firefox_has_extension "$firefox_profile_before_install" true
}
# APP NAME SINCE BEFORE: the badge on APP rose by one with NAME's finished
# event: the BadgeChanged notifyctl monitor saw with it is one more than
# the one before it since SINCE (a time as the monitor writes it), or than
# BEFORE, the badge then. The badge is not compared with a count kept here:
# at a start the extension reports the browser's window focused, and
# notifyd then takes the browser for the active app and clears its badge
# (StateChanged active, BadgeChanged 0), before or after the download ends.
badge_rose_by_one() {
    jq -s -e --arg app "$1" --arg name "$2" --arg since "$3" --argjson before "$4" '
        [.[] | select(.time >= $since) | select((.member == "BadgeChanged" and .args[0] == $app)
            or (.member == "HandleEventsForBackgroundSession" and .args[1] == $app
                and .args[3].kind == "finished" and .args[3].title == $name))] as $seen
        | ($seen | map(.member == "HandleEventsForBackgroundSession") | index(true)) as $at
        | $at != null and $at >= 1 and $seen[$at - 1].member == "BadgeChanged"
        | if . then $seen[$at - 1].args[1] == (if $at >= 2 then $seen[$at - 2].args[1] else $before end) + 1 else . end' \
        "$monitor_log"
}
# How long each download takes: one second, less than Firefox ESR takes to
# start the extension's background in this root (some 4 s after the page's
# request): the download given on the command line has ended by then, and
# the extension's catch-up reports it (what ended in the last minutes and
# was not reported yet).
download_seconds=1
# BROWSER PROFILE WHAT NAME: the browser is started on PROFILE with the
# download of NAME; it is saved, notifyd posts it with its path, and the
# browser's badge counts it. Ends the browser.
download_reaches_notifyd() {
    local browser=$1 profile=$2 what=$3 name=$4 since before
    since=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)
    before=$(as_alice notifyctl badge get "$browser")
    browser_start "$browser" "$profile" "$server/$name?seconds=$download_seconds"
    check "$what: the download of $name is saved in ~/Downloads" wait_for 60 saved "$name"
    check "$what: notifyd posted Download complete, $name, with Open" wait_for 30 notified "$browser" "$name"
    check "$what: the finished event had the file's path, and its popup was posted" \
        wait_for 10 finished_with_path "$browser" "$name"
    check "$what: the badge on $browser rose by one with it" wait_for 10 badge_rose_by_one "$browser" "$name" "$since" "$before"
    if [ "$browser" = chromium ]; then
        check "$what: the extension's service worker runs (DevTools)" wait_for 10 extension_worker_runs "$profile"
    fi
    # Read while Firefox runs, waiting for it: a fresh profile's add-on
    # database is written some seconds after the start, and once under load
    # it was not yet written when the browser was stopped (it read []).
    if [ "$browser" = firefox-esr ]; then
        check "$what: the profile has browser@notifyd.org, active, from the system scope" \
            wait_for 30 firefox_has_extension "$profile" true
    fi
    browser_stop
}
# BROWSER PROFILE WHAT NAME: a download in the browser, and its downloads
# reach notifyd again after a restart of the browser on the same profile.
browser_checks() {
    local browser=$1 profile=$2 what=$3 name=$4
    download_reaches_notifyd "$browser" "$profile" "$what" "$name-1.bin"
    download_reaches_notifyd "$browser" "$profile" "$what, restarted" "$name-2.bin"
}
# BROWSER PROFILE WHAT NAME: after the purge, the browser starts on PROFILE
# (and saves a download: it is up) without the extension.
extension_gone() {
    local browser=$1 profile=$2 what=$3 name=$4
    browser_start "$browser" "$profile" "$server/$name?seconds=2"
    check "$what: the download of $name is saved" wait_for 60 saved "$name"
    if [ "$browser" = chromium ]; then
        check "$what: the extension is gone (no target of it in DevTools)" no_extension_target "$profile"
        browser_stop
    else
        browser_stop
        check "$what: the extension is gone (the profile's extensions.json)" firefox_has_extension "$profile" false
    fi
}
# A second extension directory with a short name, next to the package's:
# the wrapper's `ls -dm` must still give one --load-extension list.
short_extension_directory=/usr/share/chromium/extensions/x
add_short_extension() {
    mkdir -p "$short_extension_directory" &&
        printf '{"manifest_version": 3, "name": "x", "version": "1"}\n' >"$short_extension_directory/manifest.json"
}
# The flags Debian's /etc/chromium.d/extensions gives the wrapper, split at
# spaces as the wrapper's unquoted $CHROMIUM_FLAGS is: one --load-extension
# with both directories.
wrapper_loads_both() {
    # shellcheck disable=SC2016 # expanded by the inner sh
    sh -c '. /etc/chromium.d/extensions; printf "%s\n" $CHROMIUM_FLAGS' | tee /dev/stderr |
        grep -qx -- "--load-extension=/usr/share/chromium/extensions/org.notifyd.browser,$short_extension_directory"
}
# BROWSER: notifyctl browser status --json has it with the extension and
# the host set up system-wide.
set_up_system_wide() {
    local json
    json=$(as_alice notifyctl browser status --json) || { printf '%s\n' "$json"; return 1; }
    jq -e --arg browser "$1" 'any(.[]; .browser == $browser and .extension == "system-wide" and .host == "set-up")' <<<"$json" ||
        { printf '%s\n' "$json"; return 1; }
}

fresh() {
    local deb=$1
    check "no Swift toolchain in the root" bash -c '! command -v swift && ! ls /opt/swift 2>/dev/null'
    check "apt-get update (mmdebstrap leaves no package lists)" apt-get update -q
    # The browsers come first: a profile made before notifyd is installed
    # gets the extension at its next start. (Without Firefox's recommended
    # codecs: nothing here plays media.)
    local browsers_started=$SECONDS browsers_time
    check "apt-get install firefox-esr chromium (before notifyd)" \
        apt-get install -y -q --no-install-recommends firefox-esr chromium
    check "a Firefox ESR profile made before notifyd is installed (without the extension)" make_firefox_profile
    browsers_time=$((SECONDS - browsers_started))
    check "apt-get install ./$deb pulls its dependencies" apt-get install -y -q "./$deb"
    check "notifyd's D-Bus activation file names /usr/bin/notifyd" \
        grep -qx 'Exec=/usr/bin/notifyd' /usr/share/dbus-1/services/org.notifyd.Notifyd1.service
    check "the UnifiedPush distributor's D-Bus activation file names /usr/bin/notifyd" \
        grep -qx 'Exec=/usr/bin/notifyd' /usr/share/dbus-1/services/org.unifiedpush.Distributor.notifyd.service
    check "the systemd user unit is installed and enabled for graphical sessions" \
        test -L /etc/systemd/user/graphical-session.target.wants/notifyd.service
    # A systemd user manager does not start in this root (no systemd runs as
    # PID 1 in the sandbox): the unit is checked as systemd would load it.
    mkdir -p /run/user/0
    check "systemd-analyze verify of the user unit" \
        env XDG_RUNTIME_DIR=/run/user/0 systemd-analyze --user verify /usr/lib/systemd/user/notifyd.service
    start_session
    check "a notification server on the session bus (records the popups)" start_notification_server
    check "nothing runs notifyd before the first call" bash -c '! pgrep -x notifyd'
    check "the first notifyctl status starts notifyd (0.2.0 or later)" says "Version:" as_alice notifyctl status
    check "notifyd was started by D-Bus activation" notifyd_activated
    check "an event" as_alice notifyctl event dl-1 --app org.example.Browser --title debian-12.iso
    check "its handler is pending" in_bash \
        'as_alice notifyctl sessions --json | jq -e ".[] | select(.session == \"dl-1\") | .pending == 1"'
    check "the event's badge" equals 1 as_alice notifyctl badge get org.example.Browser
    check "a badge set" as_alice notifyctl badge set org.example.Mail 3
    check "the badge read back" equals 3 as_alice notifyctl badge get org.example.Mail
    check "activating the app" as_alice notifyctl activate org.example.Mail
    check "activating the app cleared its badge" equals 0 as_alice notifyctl badge get org.example.Mail
    check "the browser host is installed" says "notifyd-browser-host 0.2" /usr/lib/notifyd/notifyd-browser-host --version
    check "Firefox's system-wide host manifest names it" in_bash \
        'jq -e ".path == \"/usr/lib/notifyd/notifyd-browser-host\" and .allowed_extensions == [\"browser@notifyd.org\"]" /usr/lib/mozilla/native-messaging-hosts/org.notifyd.browser.json'
    check "Chromium's system-wide host manifest names it" in_bash \
        'jq -e ".path == \"/usr/lib/notifyd/notifyd-browser-host\"" /etc/chromium/native-messaging-hosts/org.notifyd.browser.json'
    check "the extension's files are installed, for Chromium and for Firefox" \
        test -f /usr/share/notifyd/browser/chromium/background.js -a -f /usr/share/notifyd/browser/firefox/background.js
    check "Chromium's extensions directory links to the extension" \
        test -f /usr/share/chromium/extensions/org.notifyd.browser/manifest.json
    check "Firefox ESR's system scope links to the extension" \
        test -f "/usr/share/mozilla/extensions/{ec8030f7-c20a-464f-9b0e-13a3a9e97384}/browser@notifyd.org/manifest.json"
    check "Firefox ESR's preference file makes it scan the system scope at each start" \
        grep -qx 'pref("extensions.startupScanScopes", 8);' /etc/firefox-esr/notifyd.js
    check "a download the browser reports reaches notifyd" browser_reports
    check "its badge is on the browser" equals 1 as_alice notifyctl badge get firefox-esr
    check "notifyctl browser status: Firefox ESR has the extension and the host, system-wide" in_bash \
        'as_alice notifyctl browser status | grep -E "^Firefox ESR +system-wide +set up \(system-wide\)$"'
    check "notifyctl browser status: Chromium has the extension and the host, system-wide" in_bash \
        'as_alice notifyctl browser status | grep -E "^Chromium +system-wide +set up \(system-wide\)$"'
    check "notifyctl browser status --json: Firefox ESR, system-wide, set-up" set_up_system_wide "Firefox ESR"
    check "notifyctl browser status --json: Chromium, system-wide, set-up" set_up_system_wide Chromium
    check "notifyctl browser status with no browser on PATH: No browser found" \
        says "No browser found (" as_alice env PATH=/nonexistent /usr/bin/notifyctl browser status
    # Downloads in the browsers themselves.
    browsers_started=$SECONDS
    check "a download server on 127.0.0.1" start_server
    start_monitor
    browser_checks firefox-esr /home/alice/firefox-fresh "Firefox ESR, a fresh profile" firefox-fresh
    browser_checks firefox-esr "$firefox_profile_before_install" "Firefox ESR, the profile made before the install" firefox-before
    browser_checks chromium /home/alice/chromium-fresh "Chromium, a fresh --user-data-dir" chromium-fresh
    check "a second, short directory in /usr/share/chromium/extensions" add_short_extension
    check "Chromium's wrapper gets one --load-extension with both directories" wrapper_loads_both
    download_reaches_notifyd chromium /home/alice/chromium-short "Chromium, with /usr/share/chromium/extensions/x too" chromium-x.bin
    rm -rf "$short_extension_directory"
    browsers_time=$((browsers_time + SECONDS - browsers_started))
    # A background transfer: libcurl is not linked but loaded at the first
    # one (Sources/CCurl), from the libcurl4 that the package depends on.
    check "notifyctl download --wait: notifyd fetches a file itself, with libcurl loaded when first needed" \
        as_alice notifyctl download --wait "$server/notifyctl-download.bin"
    check "the downloaded file is in ~/Downloads, whole" \
        test "$(stat -c %s "$downloads/notifyctl-download.bin" 2>/dev/null)" = 100000
    check "a fetch interval" as_alice notifyctl fetch interval org.example.Reader 3600
    check "a fetch run and completed (the first, planned at once)" fetch_completes org.example.Reader new-data
    check "the fetch's result in the schedule" says '"last_result":"new-data"' as_alice notifyctl fetch show org.example.Reader --json
    check "a background task runs its command" says org.example.Backup \
        as_alice notifyctl task run --app org.example.Backup --name nightly -- notifyctl tasks
    check "the state is in the user's home" test -s /home/alice/.local/state/notifyd/state.sqlite3
    check "man notifyctl" says "notifyctl" env MANPAGER=cat MANWIDTH=80 man notifyctl
    check "man notifyd" says "--fetch-minimum" env MANPAGER=cat MANWIDTH=80 man notifyd
    check "man notifyd-download (the hooks' page)" says "notifyd-hooks" man -w notifyd-download
    check "notifyctl <TAB> offers the commands" says status tab_completes
    check "notifyctl fetch <TAB> offers its commands" says interval tab_completes fetch
    check "zsh and fish completions are where those shells look" \
        test -s /usr/share/zsh/vendor-completions/_notifyctl -a -s /usr/share/fish/vendor_completions.d/notifyctl.fish
    check "the hooks are on PATH" bash -c 'command -v notifyd-download notifyd-aria2-complete notifyd-yt-dlp notifyd-transmission-done notifyd-feed notifyd-backup'
    # A new session whose first caller is an app's UnifiedPush connector.
    end_session
    start_session
    check "nothing runs notifyd in a new session" bash -c '! pgrep -u alice -x notifyd'
    check "a UnifiedPush connector's Register starts notifyd as the distributor" says '"reason" s "ACTION_REQUIRED"' \
        as_alice busctl --address="$bus" call org.unifiedpush.Distributor.notifyd /org/unifiedpush/Distributor \
        org.unifiedpush.Distributor2 Register 'a{sv}' 2 service s org.example.Chat token s tok-1
    check "notifyd was started by D-Bus activation, as the distributor" notifyd_activated
    check "notifyctl push list shows the registration" says "org.example.Chat" as_alice notifyctl push list
    check "no XMPP server set: libstrophe is not mapped" strophe_not_mapped
    check "an XMPP server set: libstrophe is loaded from libstrophe0, and the attempt is made" xmpp_attempt_is_made
    check "apt-get remove" apt-get remove -y -q notifyd
    check "removing stopped no session: the bus still runs" pgrep -u alice -x dbus-daemon
    check "removing left the user's state" test -s /home/alice/.local/state/notifyd/state.sqlite3
    end_session
    check "apt-get purge" apt-get purge -y -q notifyd
    check "purging left the user's state" test -s /home/alice/.local/state/notifyd/state.sqlite3
    check "purging removed the unit's enablement" test ! -e /etc/systemd/user/graphical-session.target.wants/notifyd.service
    check "purging removed the browsers' links and Firefox's preference file" bash -c \
        '! test -e /usr/share/chromium/extensions/org.notifyd.browser -o -e "/usr/share/mozilla/extensions/{ec8030f7-c20a-464f-9b0e-13a3a9e97384}/browser@notifyd.org" -o -e /etc/firefox-esr/notifyd.js'
    # The next start of each browser, on the profiles that had the extension.
    browsers_started=$SECONDS
    start_session
    extension_gone firefox-esr /home/alice/firefox-fresh "Firefox ESR after the purge, the fresh profile" firefox-purged-1.bin
    extension_gone firefox-esr "$firefox_profile_before_install" "Firefox ESR after the purge, the profile made before the install" firefox-purged-2.bin
    extension_gone chromium /home/alice/chromium-fresh "Chromium after the purge" chromium-purged.bin
    end_session
    stop_daemons
    echo "# the browsers' checks took $((browsers_time + SECONDS - browsers_started)) s"
}

upgrade() {
    local old=$1 new=$2
    rm -rf /home/alice/.local/state/notifyd
    check "the previous release installs" apt-get install -y -q "./$old"
    start_session
    check "the previous release runs" says "Version:" as_alice notifyctl status
    check "a badge under the previous release" as_alice notifyctl badge set org.example.Mail 5
    check "a pending handler (a day's deadline) under the previous release" \
        as_alice notifyctl event up-1 --app org.example.Browser --timeout 86400 --title kept.iso
    check "a fetch schedule under the previous release" as_alice notifyctl fetch interval org.example.Reader 7200
    check "a fetch in its history" fetch_completes org.example.Reader no-data
    # Upgraded under the running daemon, as on a desktop; the new one runs
    # from the next start (the next login).
    check "upgrading to $new" apt-get install -y -q "./$new"
    end_session
    start_session
    check "the new release is started" says "$(dpkg-query -W -f='${Version}' notifyd)" as_alice notifyctl status
    check "the badge survived the upgrade" equals 5 as_alice notifyctl badge get org.example.Mail
    check "the event's badge survived the upgrade" equals 1 as_alice notifyctl badge get org.example.Browser
    check "the pending handler survived the upgrade" in_bash \
        'as_alice notifyctl sessions --json | jq -e ".[] | select(.session == \"up-1\") | .pending == 1"'
    check "the fetch schedule survived the upgrade" says '"requested_interval":7200' \
        as_alice notifyctl fetch show org.example.Reader --json
    check "the fetch history survived the upgrade" says '"last_result":"no-data"' \
        as_alice notifyctl fetch show org.example.Reader --json
    end_session
}

"$@"
