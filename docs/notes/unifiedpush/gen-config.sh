#!/bin/sh
# usage: gen-config.sh DIR C2S_PORT HTTP_PORT
D=$1; C2S=$2; HTTP=$3
mkdir -p "$D/data"
cat > "$D/prosody.cfg.lua" <<CFG
-- private, unprivileged test instance
run_as_root = true            -- only matters if started as uid 0 (prosodyctl would otherwise setuid to 'prosody')
pidfile = "$D/prosody.pid"
certificates = "$D/pki"
data_path = "$D/data"
plugin_paths = { "/usr/lib/prosody/modules" }   -- prosody-modules installs into the core module dir on Debian
log = { debug = "$D/prosody.log"; error = "$D/prosody.err" }
-- log = { { levels = { min = "debug" }, to = "console" } }

interfaces = { "127.0.0.1" }
local_interfaces = { "127.0.0.1" }
c2s_ports = { $C2S }
c2s_interfaces = { "127.0.0.1" }
c2s_direct_tls_ports = { }
s2s_ports = { }
http_ports = { $HTTP }
http_interfaces = { "127.0.0.1" }
https_ports = { }             -- otherwise http_url() prefers https://...:5281
modules_disabled = { "s2s", "offline" }

modules_enabled = {
  "roster"; "saslauth"; "tls"; "disco"; "ping"; "posix";
  "smacks";                 -- XEP-0198 (core module in 0.12)
  "unified_push";
}
authentication = "internal_hashed"   -- SCRAM-SHA-1 (+PLUS needs channel binding)
storage = "internal"
c2s_require_encryption = true
allow_registration = false
unified_push_backend = "storage"     -- 0.12 default anyway ("paseto" needs trunk)
unified_push_registration_ttl = 3600

VirtualHost "localhost"
  ssl = { certificate = "$D/pki/localhost.crt"; key = "$D/pki/localhost.key"; }
CFG
