// Every security-relevant limit and lifetime the code fixes, declared once with its reason; the
// modules read them from here. docs/configuration.md lists them (`npx tsx scripts/policy-table.ts
// --write`; test/unit/policy-docs.test.ts keeps the two equal): one entry is a `/** reason */`
// line, then `export const NAME = value;` (or an object whose fields each carry one).
import { DAY, HOUR, MINUTE } from "./time.ts";

// Codes, grants and requests

/** An authorization code is redeemable this long (RFC 6749 4.1.2 recommends 10 minutes at most). */
export const CODE_TTL_MS = 10 * MINUTE;
/** A signed sign-in request is good this long: a person reads the page and decides. */
export const REQUEST_OBJECT_TTL_SECONDS = 15 * 60;
/** A revoked grant is kept this long (the owner's history) before housekeeping drops it. */
export const REVOKED_RETENTION_MS = 7 * DAY;
/** An app's usage is written at most this often per function instance: verification stays a read. */
export const USAGE_WRITE_INTERVAL_MS = 5 * MINUTE;
/** Scopes an app summary counts (one grant holds at most 33); past it the console says "and other scopes". */
export const HELD_SCOPES = 64;
/** Apps read per console load (two reads each); the rest are counted, and revoke-all reaches them. */
export const APPS_SHOWN = 20;

// Clients

/** A client page that trickles its answer holds a sign-in at most this long. */
export const CLIENT_FETCH_BUDGET = { headersTimeoutMs: 1500, timeoutMs: 3000 } as const;
/** For a domain that had its fill of slow pages this minute: a document answered at once is still read. */
export const SHORT_FETCH_BUDGET = { headersTimeoutMs: 500, timeoutMs: 1000 } as const;
/** How long a slow client_id is remembered, and the window its domain's count covers. */
export const FAILURE_TTL_MS = MINUTE;
/** Slow client_ids per registrable domain within the window before its fetches get the short budget. */
export const SLOW_PER_DOMAIN = 3;
/** The largest Client ID Metadata Document read (the draft's recommended limit, 8.7). */
export const MAX_METADATA_DOCUMENT_BYTES = 5 * 1024;
/** The largest jwks_uri document read: room for a handful of keys, not for a flood. */
export const MAX_JWKS_BYTES = 32 * 1024;
/** A client assertion may live this long (exp - now): a stolen one is soon worthless (RFC 7523 3). */
export const MAX_LIFETIME_S = 5 * 60;
/** Clocks of a client and this server may differ by this much. */
export const CLOCK_SKEW_S = 30;
/** Redirect URIs a registered client may name: Cursor registers three, VS Code four. */
export const MAX_REGISTERED_REDIRECT_URIS = 8;

// Requests

/** Bodies larger than this are refused with 413 before parsing. */
export const MAX_BODY_BYTES = 64 * 1024;

// The owner

/** "Keep me signed in": a session cookie that outlives the browser. */
export const PERSISTENT_SESSION_MS = 30 * DAY;
/** Without it (console sign-in only): a browser-session cookie, and the record ends anyway. */
export const BROWSER_SESSION_MS = 12 * HOUR;
/** A known device is remembered a year, renewed at each sign-in (browsers cap a cookie at 400 days). */
export const DEVICE_LIFETIME_MS = 365 * DAY;
/** A WebAuthn ticket (its challenge) is good this long: one passkey ceremony. */
export const TICKET_TTL_SECONDS = 5 * 60;
/** What the password or a passkey approved for an app, a session may approve again this long. */
export const APPROVAL_TTL_MS = 90 * DAY;
/** Passkeys the owner may register: all are kept in one record. */
export const MAX_PASSKEYS = 20;
/** Console checks of an MCP server per minute: a stolen session is no fetching machine. */
export const MCP_CHECKS_PER_MINUTE = 10;
/** One alert message per kind per this long, at most. */
export const ALERT_INTERVAL_MS = MINUTE;

/** The password-guessing throttle. */
export const THROTTLE_POLICY = {
  /** Failures from one address (or one known device) before back-off starts. */
  freeFailuresPerIp: 5,
  /** Failures from one network (IPv4 /24, IPv6 /48) before back-off starts. */
  freeFailuresPerNetwork: 10,
  /** First back-off; doubles with each further failure. */
  firstBackoffMs: MINUTE,
  /** The longest back-off: the owner, who mistyped, is never held longer. */
  maxBackoffMs: 15 * MINUTE,
  /** An address's, a network's and a device's failures are remembered for a day. */
  ipMemoryMs: DAY,
  /** Failures in an hour, from devices not known, past which the overall limit engages... */
  globalFailures: 20,
  /** ...counted over this window... */
  globalWindowMs: HOUR,
  /** ...and then lets one counted guess through per this long. */
  globalIntervalMs: MINUTE,
  /** Held back this long when a counter kept changing under a burst of attempts. */
  busyRetryMs: 5_000,
} as const;
/** Most live address and network throttle counters at once (past it the write is dropped, the check still runs). */
export const COUNTER_CAP = 10_000;

// The owner's logs

/** Sign-in history kept this many days. */
export const EVENT_RETENTION_DAYS = 30;
/** Sign-in history slots per hour for each outcome, so junk cannot crowd out the owner's sign-ins. */
export const EVENT_SLOTS_PER_HOUR = { failure: 10, success: 30 } as const;
/** Refusals counted in an hour at most (each one write): past it the hour says "at least". */
export const REFUSED_COUNTED_PER_HOUR = 1000;
/** Connection log records of apps the owner approved. */
export const CONNECTION_APPROVED_CEILING = 32;
/** Connection log slots for any other client (a colliding client takes one over). */
export const CONNECTION_SLOTS = 16;
/** Attempts kept per approved client's connection log. */
export const ATTEMPTS_PER_CLIENT = 50;
/** Attempts kept per other client's connection log. */
export const ANONYMOUS_ATTEMPTS_PER_CLIENT = 10;
/** Connection logs kept this many days after their last attempt. */
export const CONNECTION_RETENTION_DAYS = 30;

// Housekeeping

/** Records examined per hourly sweep: ten at a time, a run takes seconds. */
export const SWEEP_BUDGET = 1000;
