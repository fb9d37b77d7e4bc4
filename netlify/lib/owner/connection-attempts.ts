// The connection doctor's attempts, apart from where they are stored (connection-log.ts): how a
// step joins the attempt it belongs to, and the two tiers of a client's attempts. Anyone with an
// app's sign-in link can open its page, press Deny or send made-up codes; only the owner approves.
// So the attempts a credential or session took part in (showsSignIn) have a tier of their own,
// which the others never push out (docs/security.md).
import { secretHash } from "../crypto/secrets.ts";
import { ANONYMOUS_ATTEMPTS_PER_CLIENT, ATTEMPTS_PER_CLIENT, CONNECTION_RETENTION_DAYS } from "../core/policy.ts";
import { DAY } from "../core/time.ts";

export const RETENTION_MS = CONNECTION_RETENTION_DAYS * DAY;
/** Steps kept per attempt (the latest: refreshes of a long connection add up). */
const STEPS_PER_ATTEMPT = 8;
const LINKS_PER_ATTEMPT = 4;
/** Longest text kept of what a client or an error said. */
export const LOG_TEXT_LIMIT = 100;

/** Every step, in the protocol's order (that of an attempt's steps at the same moment).
 * `profile`: a code redeemed at POST /auth for the profile URL (a sign-in, no token). */
const ALL = ["request", "document", "consent", "approved", "denied", "code", "profile", "refresh", "resource"] as const;
export type ConnectionStep = (typeof ALL)[number];

export interface StoredStep {
  step: ConnectionStep;
  ok: boolean;
  at: number;
  /** The OAuth error code, or the resource's refusal reason. */
  error?: string;
  /** What the step said, cut to LOG_TEXT_LIMIT characters. */
  detail?: string;
}

export interface StoredAttempt {
  startedAt: number;
  at: number;
  links: string[];
  steps: StoredStep[];
}

/** A client's attempts in their two tiers, newest first in each. */
export interface AttemptTiers {
  /** Attempts a credential or session took part in: anyone else's never push these out. */
  attempts: StoredAttempt[];
  /** Attempts nobody signed in for (a sign-in page opened, a request refused, a made-up code). */
  anonymous: StoredAttempt[];
}

export interface StepEvent extends StoredStep {
  clientId: string;
  /** Hashes that tie this step to earlier and later steps of the same attempt. */
  links: string[];
  /** The owner approved the client: its log moves to (or stays in) the approved tier. */
  approvedClient?: boolean;
}

/** The refusals of the blog's functions said only of a token this server issued (its hash is
 * checked first: protocol/grants.ts checkGrantToken). */
const GENUINE_TOKEN_REFUSALS = new Set(["wrong-resource", "insufficient_scope", "expired", "revoked"]);

/** Whether a step shows a credential or session at work: the owner approved, a code or a
 * refresh token was accepted, or the blog's function refused a genuine token. Anyone can cause
 * every other step (a sign-in page opened, a Deny, a made-up code or token refused). */
export function showsSignIn(step: Pick<StoredStep, "step" | "ok" | "error">): boolean {
  if (step.step === "resource") return GENUINE_TOKEN_REFUSALS.has(step.error ?? "");
  return (
    step.ok && (step.step === "approved" || step.step === "code" || step.step === "profile" || step.step === "refresh")
  );
}

const short = (value: string) => secretHash(value).slice(0, 22);
/** What ties the steps of one attempt: the PKCE challenge (GET /auth, approval), the code
 * (approval, /token), the grant (/token, refresh, the resource). */
export const attemptLinks = {
  challenge: (clientId: string, codeChallenge: string) => `p:${short(`${clientId}\u0000${codeChallenge}`)}`,
  code: (code: string) => `c:${short(code)}`,
  grant: (grantId: string) => `g:${short(grantId)}`,
};
/** A link only the attempt's app (and the resources it calls) can make: its code's or grant's.
 * The PKCE challenge's is not: it is in the sign-in link, which anyone may have. */
const heldLink = (link: string) => link.startsWith("c:") || link.startsWith("g:");

/** Text from outside (a client, an error, a browser), as kept and shown: at most `limit`
 * characters, an ellipsis ending a cut one. */
export function cutText(text: string, limit: number): string {
  const chars = Array.from(text);
  return chars.length <= limit ? text : `${chars.slice(0, limit - 1).join("")}…`;
}
export const logText = (text: string): string => cutText(text, LOG_TEXT_LIMIT);

export const NO_ATTEMPTS: AttemptTiers = { attempts: [], anonymous: [] };
export const latestAt = (tiers: AttemptTiers) =>
  Math.max(0, ...[...tiers.attempts, ...tiers.anonymous].map((a) => a.at));

/** A stored record's tiers (a malformed one's missing tier read as empty). */
export const tiersOf = (record: { attempts: StoredAttempt[]; anonymous?: unknown }): AttemptTiers => ({
  attempts: record.attempts,
  anonymous: Array.isArray(record.anonymous) ? (record.anonymous as StoredAttempt[]) : [],
});

/** An attempt the owner answered: a later request with the same PKCE challenge (a sign-in link
 * used again, as the README's by hand is) starts an attempt of its own. */
const answered = (attempt: StoredAttempt) => attempt.steps.some((s) => s.step === "approved" || s.step === "denied");
const inOrder = (a: StoredStep, b: StoredStep) => a.at - b.at || ALL.indexOf(a.step) - ALL.indexOf(b.step);

/** The tiers with the step added: to every attempt it links to (made one: the steps of one
 * attempt are written after their answers, so a code refused at /token may be logged before the
 * approval that issued it), else as a new one; the newest first, the old and the surplus
 * dropped. By the PKCE challenge alone it joins only an attempt not yet answered. A step anyone
 * can cause joins a signed-in attempt only through a held link, and otherwise stays in the
 * anonymous tier; a step that shows a sign-in takes its attempt to the signed-in tier. */
export function withStep(tiers: AttemptTiers, event: StepEvent): AttemptTiers {
  const { clientId: _c, links, approvedClient: _a, ...rest } = event;
  const step: StoredStep = { ...rest, ...(event.detail !== undefined ? { detail: logText(event.detail) } : {}) };
  const live = (list: StoredAttempt[]) => list.filter((a) => a.at > event.at - RETENTION_MS);
  const signedIn = showsSignIn(step);
  const linkedBy = (usable: (link: string) => boolean) => (a: StoredAttempt) =>
    a.links.some((link) => usable(link) && links.includes(link) && (heldLink(link) || !answered(a)));
  const joinsMain = linkedBy(signedIn ? () => true : heldLink);
  const joinsAnonymous = linkedBy(() => true);
  const [main, anonymousTier] = [live(tiers.attempts), live(tiers.anonymous)];
  const fromMain = main.filter(joinsMain);
  const fromAnonymous = anonymousTier.filter(joinsAnonymous);
  const found = [...fromMain, ...fromAnonymous];
  const attempt: StoredAttempt = {
    startedAt: Math.min(event.at, ...found.map((a) => a.startedAt)),
    at: Math.max(event.at, ...found.map((a) => a.at)),
    links: [...new Set([...found.flatMap((a) => a.links), ...links])].slice(-LINKS_PER_ATTEMPT),
    steps: [...found.flatMap((a) => a.steps), step].sort(inOrder).slice(-STEPS_PER_ATTEMPT),
  };
  const attempts = main.filter((a) => !fromMain.includes(a));
  const anonymous = anonymousTier.filter((a) => !fromAnonymous.includes(a));
  if (signedIn || fromMain.length > 0)
    return { attempts: [attempt, ...attempts].slice(0, ATTEMPTS_PER_CLIENT), anonymous };
  return { attempts, anonymous: [attempt, ...anonymous].slice(0, ANONYMOUS_ATTEMPTS_PER_CLIENT) };
}

/** `into` with the steps and links of `from` folded in (the same step once), in order. */
function folded(into: StoredAttempt, from: StoredAttempt): StoredAttempt {
  const steps = new Map([...into.steps, ...from.steps].map((s) => [JSON.stringify([s.step, s.at, s.ok, s.error]), s]));
  return {
    startedAt: Math.min(into.startedAt, from.startedAt),
    at: Math.max(into.at, from.at),
    links: [...new Set([...into.links, ...from.links])],
    steps: [...steps.values()].sort(inOrder).slice(-STEPS_PER_ATTEMPT),
  };
}

/** Attempts of one tier of a client from two records, those sharing a link made one. */
function mergeAttempts(
  first: readonly StoredAttempt[],
  second: readonly StoredAttempt[],
  limit: number,
): StoredAttempt[] {
  const out = [...first];
  for (const attempt of second) {
    const same = out.findIndex((a) => a.links.some((link) => attempt.links.includes(link)));
    if (same < 0) out.push(attempt);
    else out[same] = folded(out[same]!, attempt);
  }
  return out.sort((a, b) => b.at - a.at).slice(0, limit);
}

/** Both tiers of a client from two records (its slot's and its approved one's, when it was
 * approved while another of its steps was being written); an attempt signed in in either is
 * signed in. An anonymous attempt that holds a link of a signed-in one (its code refused at
 * /token, logged in the slot before the approval landed) joins it; one that shares only the
 * challenge is the slot's copy of steps the approval took along. */
export function mergeTiers(first: AttemptTiers, second: AttemptTiers): AttemptTiers {
  const attempts = mergeAttempts(first.attempts, second.attempts, ATTEMPTS_PER_CLIENT);
  const anonymous: StoredAttempt[] = [];
  for (const attempt of mergeAttempts(first.anonymous, second.anonymous, ANONYMOUS_ATTEMPTS_PER_CLIENT)) {
    const holder = attempts.findIndex((m) => m.links.some((link) => heldLink(link) && attempt.links.includes(link)));
    if (holder >= 0) attempts[holder] = folded(attempts[holder]!, attempt);
    else if (!attempts.some((m) => m.links.some((link) => attempt.links.includes(link)))) anonymous.push(attempt);
  }
  return { attempts, anonymous };
}
