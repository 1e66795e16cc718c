// The notifyd browser extension: reports each download to notifyd through
// the native messaging host org.notifyd.browser (notifyd-browser-host),
// which turns them into background sessions of the browser's app.
//
// One source for Firefox (an event page: background "scripts") and
// Chromium-based browsers (a service worker). Both may stop this script
// when idle, so it keeps no state that matters: at every start it asks
// the browser what is downloading and reports it again.
"use strict";

const api = globalThis.browser ?? globalThis.chrome;
const HOST = "org.notifyd.browser";
const POLL_MS = 1000;

let port = null;
// The downloads being followed: id -> the last item seen.
const followed = new Map();
// The downloads whose end was reported (the poll and onChanged may both
// see it): each end is sent once. Kept in the extension's storage too
// (the newest REMEMBERED), so that after a restart the catch-up reports
// what ended while the extension was not running, and nothing twice.
const ended = new Set();
const REMEMBERED = 1000;
// How far back the catch-up looks for downloads that ended unreported.
const CATCH_UP_MS = 10 * 60 * 1000;
let remembered = null;
let pollTimer = null;
let focusTimer = null;

function connect() {
  if (port) return port;
  try {
    port = api.runtime.connectNative(HOST);
  } catch (error) {
    console.warn("notifyd: cannot start the host:", error);
    port = null;
    return null;
  }
  port.onDisconnect.addListener(() => {
    const error = api.runtime.lastError ?? port?.error;
    if (error) console.warn("notifyd: the host left:", error.message ?? error);
    port = null;
    // Started again for the next download; what runs now is sent again.
    if (followed.size > 0) setTimeout(catchUp, POLL_MS);
  });
  return port;
}

function send(message) {
  const current = connect();
  if (!current) return;
  try {
    current.postMessage(message);
  } catch (error) {
    port = null;
  }
}

function report(item, vanished = false) {
  // A private window's download leaves the browser without its name,
  // path or address.
  const secret = Boolean(item.incognito);
  send({
    type: "download",
    download: {
      id: item.id,
      startTime: item.startTime,
      state: item.state,
      incognito: Boolean(item.incognito),
      filename: secret ? "" : item.filename || "",
      url: secret ? "" : item.finalUrl || item.url || "",
      bytesReceived: item.bytesReceived ?? 0,
      totalBytes: item.totalBytes ?? -1,
      error: item.error ?? null,
      paused: Boolean(item.paused),
      vanished,
    },
  });
}

// Interrupted downloads without a reason yet: id -> when first seen so.
const unexplained = new Map();
// How long a reason may take to come (Firefox's cancel gives it late, and
// later still on a loaded machine) before the interruption is a failure.
const UNEXPLAINED_MS = 5 * POLL_MS;

function isRunning(item) {
  // Firefox shows a paused download as interrupted, with `paused`.
  if (item.state === "in_progress" || (item.state === "interrupted" && item.paused)) return true;
  // Firefox's cancel is first "interrupted" with no `error`, and only then
  // USER_CANCELED: give the reason time to come before taking it for a
  // failure.
  if (item.state === "interrupted" && !item.error) {
    const since = unexplained.get(item.id) ?? Date.now();
    unexplained.set(item.id, since);
    if (Date.now() - since < UNEXPLAINED_MS) return true;
  }
  unexplained.delete(item.id);
  return false;
}

// Reports the newest state of a followed download, and stops following it
// when it ended (or vanished: erased from the list, or never seen again).
async function refresh(id) {
  let items = [];
  try {
    items = await api.downloads.search({ id });
  } catch (error) {
    items = [];
  }
  const item = items[0];
  if (!item) {
    const last = followed.get(id);
    followed.delete(id);
    if (last) report(last, true);
    return;
  }
  if (isRunning(item)) {
    followed.set(id, item);
    if (item.state === "interrupted" && !item.paused) return; // no reason yet: wait for it
  } else {
    followed.delete(id);
    if (!(await markEnded(item))) return;
  }
  report(item);
}

// A download is known by its start and its ID (IDs alone restart with
// Firefox), as the host names its session.
function endKey(item) {
  return `${item.startTime}|${item.id}`;
}

async function rememberedEnds() {
  if (remembered) return remembered;
  try {
    const stored = await api.storage.local.get("ended");
    remembered = Array.isArray(stored.ended) ? stored.ended : [];
  } catch (error) {
    remembered = [];
  }
  return remembered;
}

// Records that the end of `item` is reported; false when it was already.
async function markEnded(item) {
  const key = endKey(item);
  if (ended.has(key)) return false;
  const keys = await rememberedEnds();
  if (ended.has(key) || keys.includes(key)) return false;
  ended.add(key);
  if (ended.size > REMEMBERED) ended.delete(ended.values().next().value);
  keys.push(key);
  if (keys.length > REMEMBERED) keys.splice(0, keys.length - REMEMBERED);
  try {
    await api.storage.local.set({ ended: keys });
  } catch (error) {
    // Reported all the same; only a restart could report it again.
  }
  return true;
}

// `onChanged` carries no `bytesReceived`: while something runs, ask the
// browser about once a second.
function schedulePoll() {
  if (pollTimer !== null || followed.size === 0) return;
  pollTimer = setTimeout(async () => {
    pollTimer = null;
    await Promise.all([...followed.keys()].map(refresh));
    schedulePoll();
  }, POLL_MS);
}

// At start (and when the host comes back): what runs now, and what ended
// in the last minutes without being reported. A download opened with the
// browser begins before this script listens, and a short one can end
// before the browser starts the script at all.
async function catchUp() {
  let recent = [];
  try {
    const since = new Date(Date.now() - CATCH_UP_MS).toISOString();
    recent = await api.downloads.search({ startedAfter: since });
  } catch (error) {
    return;
  }
  for (const item of recent) {
    if (item.state === "in_progress" || !ended.has(endKey(item))) followed.set(item.id, item);
  }
  await Promise.all([...followed.keys()].map(refresh));
  schedulePoll();
}

api.downloads.onCreated.addListener((item) => {
  followed.set(item.id, item);
  report(item);
  schedulePoll();
});

api.downloads.onChanged.addListener(async (delta) => {
  if (!followed.has(delta.id) && !delta.state) return;
  await refresh(delta.id);
  schedulePoll();
});

api.downloads.onErased?.addListener((id) => {
  const last = followed.get(id);
  followed.delete(id);
  if (last) report(last, true);
});

// Focus: the browser is the active app while one of its windows has it.
// Moving between two windows passes through "none": wait a moment.
api.windows?.onFocusChanged.addListener((windowId) => {
  clearTimeout(focusTimer);
  focusTimer = setTimeout(() => {
    send({ type: "focus", focused: windowId !== api.windows.WINDOW_ID_NONE });
  }, 300);
});

// An MV3 service worker (and Firefox's event page) runs only when an event
// wakes it: without these two listeners nothing would start it when the
// browser starts or the extension is installed, and a download begun then
// (a session restored, a download started from the command line) would be
// reported only once the browser sent a downloads event of its own.
api.runtime.onStartup.addListener(() => {
  connect();
  catchUp();
});
api.runtime.onInstalled.addListener(() => {
  connect();
  catchUp();
});

catchUp();
