#!/bin/bash
# usage: start-prosody.sh DIR [patched]   -> prints "C2S_PORT HTTP_PORT PID"
set -euo pipefail
D=$(realpath -m "$1"); mkdir -p "$D/pki"
HERE=$(dirname "$(realpath "$0")")
# 1. test CA + localhost cert
if [ ! -f "$D/pki/localhost.crt" ]; then
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$D/pki/ca.key" -out "$D/pki/ca.crt" -days 2 \
    -subj "/CN=notifyd test CA" -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -keyout "$D/pki/localhost.key" -out "$D/pki/localhost.csr" \
    -subj "/CN=localhost" 2>/dev/null
  printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n' > "$D/pki/ext.cnf"
  openssl x509 -req -in "$D/pki/localhost.csr" -CA "$D/pki/ca.crt" -CAkey "$D/pki/ca.key" \
    -CAcreateserial -out "$D/pki/localhost.crt" -days 2 -extfile "$D/pki/ext.cnf" 2>/dev/null
fi
# 2. two free loopback ports (small race window; retry on bind failure in real tests)
read -r C2S HTTP < <(python3 -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1",0)) for x in s]
print(*[x.getsockname()[1] for x in s])')
# 3. config
"$HERE/gen-config.sh" "$D" "$C2S" "$HTTP"
sed -i "s|^certificates = .*|certificates = \"$D/pki\"|" "$D/prosody.cfg.lua"
if [ "${2:-}" = patched ]; then
  sed -i "s|^plugin_paths = .*|plugin_paths = { \"$HERE/modules\", \"/usr/lib/prosody/modules\" }|" "$D/prosody.cfg.lua"
fi
# 4. account (prosodyctl writes data/localhost/accounts/alice.dat directly; no server needed)
prosodyctl --config "$D/prosody.cfg.lua" register alice localhost s3cret
# 5. start in foreground mode, backgrounded by the shell
prosody --config "$D/prosody.cfg.lua" -F > "$D/console.out" 2>&1 &
PID=$!
# 6. readiness: HTTP GET on the push path answers 200 once all modules are loaded
for i in $(seq 1 250); do
  curl -fs -o /dev/null "http://localhost:$HTTP/push/" && break
  kill -0 $PID 2>/dev/null || { cat "$D/console.out" "$D/prosody.err" >&2; exit 1; }
  sleep 0.02
done
echo "$C2S $HTTP $PID"
