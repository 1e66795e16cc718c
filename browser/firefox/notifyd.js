// notifyd's browser extension is installed for every user in Firefox ESR's
// system scope (/usr/share/mozilla/extensions/). Firefox looks there for new
// add-ons only when its build changes; this makes it look at each start, so
// a profile made before notifyd was installed gets the extension at its next
// start. Scope 8 is the system scope alone (no other add-ons are affected).
pref("extensions.startupScanScopes", 8);
