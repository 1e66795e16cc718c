#!/bin/bash
# usage: scenarios.sh RUNDIR  (RUNDIR from start-prosody.sh, ports file RUNDIR.ports)
cd /tmp/proto-xmpp
read C2S HTTP PID < "$1.ports"; CA=$1/pki/ca.crt
start() { # name mode maxpushes -> sets EP
  ./upclient alice@localhost/$1 s3cret $CA 127.0.0.1 $C2S ${3:-1} $2 > o_$1.txt 2>e_$1.txt </dev/null &
  CPID=$!
  for i in $(seq 100); do grep -q ENDPOINT o_$1.txt 2>/dev/null && break; sleep 0.05; done
  EP=$(awk '/^ENDPOINT/{print $2}' o_$1.txt)
}
post() { curl -sS -o /dev/null -w "$1: HTTP %{http_code} %{time_total}s\n" --data x "$EP"; }
start a ack;    post "ack";                       wait $CPID; echo "  client rc=$?"
start r reject; post "reject(item-not-found)";    wait $CPID
start q quit;   wait $CPID; post "after clean disconnect (resource offline)"
EP="http://localhost:$HTTP/push/nope"; post "unknown token"
if [ -n "${SLOW:-}" ]; then start i ignore 99; post "ignored (client connected, never answers)"; kill $CPID; wait $CPID 2>/dev/null; fi
