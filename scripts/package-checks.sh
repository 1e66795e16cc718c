#!/bin/bash
# The checks of the installed package, run inside the clean Debian root that
# scripts/test-package makes (as root there; the user is alice). One line per
# check: `ok - WHAT` or `not ok - WHAT` followed by what it printed.
#
#   package-checks.sh fresh DEB            install, use, remove, purge
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

fresh() {
    local deb=$1
    check "no Swift toolchain in the root" bash -c '! command -v swift && ! ls /opt/swift 2>/dev/null'
    check "apt-get update (mmdebstrap leaves no package lists)" apt-get update -q
    check "apt-get install ./$deb pulls its dependencies" apt-get install -y -q "./$deb"
    check "notifyd's D-Bus activation file names /usr/bin/notifyd" \
        grep -qx 'Exec=/usr/bin/notifyd' /usr/share/dbus-1/services/org.notifyd.Notifyd1.service
    check "the systemd user unit is installed and enabled for graphical sessions" \
        test -L /etc/systemd/user/graphical-session.target.wants/notifyd.service
    # A systemd user manager does not start in this root (no systemd runs as
    # PID 1 in the sandbox): the unit is checked as systemd would load it.
    mkdir -p /run/user/0
    check "systemd-analyze verify of the user unit" \
        env XDG_RUNTIME_DIR=/run/user/0 systemd-analyze --user verify /usr/lib/systemd/user/notifyd.service
    start_session
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
    check "the extension's files are installed" test -f /usr/share/notifyd/browser/extension/background.js
    check "a download the browser reports reaches notifyd" browser_reports
    check "its badge is on the browser" equals 1 as_alice notifyctl badge get firefox-esr
    check "notifyctl browser status sees the system-wide manifests" in_bash \
        'as_alice notifyctl browser status | grep -E "^Firefox +no +- +set up$"'
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
    check "apt-get remove" apt-get remove -y -q notifyd
    check "removing stopped no session: the bus still runs" pgrep -u alice -x dbus-daemon
    check "removing left the user's state" test -s /home/alice/.local/state/notifyd/state.sqlite3
    end_session
    check "apt-get purge" apt-get purge -y -q notifyd
    check "purging left the user's state" test -s /home/alice/.local/state/notifyd/state.sqlite3
    check "purging removed the unit's enablement" test ! -e /etc/systemd/user/graphical-session.target.wants/notifyd.service
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
