// The connection doctor's words: each logged step as a sentence, and the fix where one is
// known for its OAuth error or refusal reason. docs/troubleshooting.md lists the same.
import type { ConnectionAttemptView, ConnectionClientView, ConnectionStepView } from "../pages/connections-view.ts";
import type { ConnectionRecord } from "./connection-log.ts";
import { logText, type StoredAttempt, type StoredStep } from "./connection-attempts.ts";

/** Where an attempt got to, by its last step. */
const STEP_PLACES: Record<string, string> = {
  request: "the sign-in request",
  document: "the app's client document",
  consent: "the sign-in page",
  approved: "your approval",
  denied: "your answer",
  code: "the token endpoint",
  profile: "the sign-in's redemption at /auth",
  refresh: "a refresh",
  resource: "your blog's check of the token",
};

/** How far an attempt nobody signed in for went, by its last step (anyone can get this far). */
const ANONYMOUS_ENDS: Record<string, string> = {
  request: "the sign-in request was refused",
  document: "the sign-in request was checked (by anyone who has the link)",
  consent: "the sign-in page was opened (by anyone who has the link)",
  denied: "the request was denied on the sign-in page (Deny takes no password)",
  code: "a code was refused at the token endpoint",
  profile: "a code was refused at /auth",
  refresh: "a refresh token was refused at the token endpoint",
  resource: "your blog refused a token",
};

const RECONNECT = "Remove the connection in the app and add it again.";

/** Fixes for the OAuth errors the authorization endpoint answers. */
const REQUEST_FIXES: Record<string, string> = {
  invalid_request:
    "The app sent an incomplete or malformed request (the message says which part). Update the app; if it is your own, fix that parameter.",
  invalid_scope:
    "The app asked for scopes this server does not grant. An MCP server should list the scopes it needs in its protected-resource metadata (scopes_supported), so that hosts ask for those.",
  invalid_target:
    "The resource the app named is not on your site. Point the app at your blog's MCP URL, exactly as your protected-resource metadata's resource says.",
  unsupported_response_type: "The app must use response_type=code.",
};

/** Fixes for the OAuth errors /token answers to a code redemption or a refresh. */
const TOKEN_FIXES: Record<string, string> = {
  invalid_grant: `The code (or refresh token) was refused: a code lives 10 minutes and works once, with the same redirect_uri and the code_verifier of its code_challenge; a refresh token works once. Using one twice revokes the connection. ${RECONNECT}`,
  invalid_client:
    "The app did not identify itself as its client document declares: a public client sends its client_id and no client_secret (this server issues none); one that declares private_key_jwt sends a signed client_assertion.",
  invalid_target:
    "The resource sent to /token is not the one the app asked for at sign-in. The app must send the same resource (your MCP URL) both times.",
  invalid_scope: "The app asked /token for more than you approved. It should ask for the approved scopes, or none.",
  invalid_request: "The app's token request lacks a parameter (the message says which). Update the app.",
  unsupported_grant_type: "The app must use grant_type=authorization_code or refresh_token.",
  temporarily_unavailable:
    "Storage did not answer in time. The app should try again; if this repeats, check Netlify's status.",
};

/** Sentences and fixes for a token refused by the blog's functions (the resource API). */
const RESOURCE_REFUSALS: Record<string, { says: string; fix: string }> = {
  "wrong-resource": {
    says: "Your blog refused the token: it was issued for another resource (wrong audience).",
    fix: "The app must send resource= your MCP URL exactly, and the function's requireToken must name the same resource; the protected-resource metadata's resource must equal that URL too.",
  },
  insufficient_scope: {
    says: "Your blog refused the token: it lacks the scope the function requires.",
    fix: `List that scope in the resource's scopes_supported and in its 401 challenge, so that the app asks for it. ${RECONNECT}`,
  },
  expired: {
    says: "Your blog refused the token: it had expired.",
    fix: "The app should renew it with its refresh token. If it never does, reconnect it; an app that cannot refresh needs a longer ACCESS_TOKEN_TTL.",
  },
  revoked: {
    says: "Your blog refused the token: it was revoked (from this page, or because a code or refresh token was used twice).",
    fix: RECONNECT,
  },
  unknown: {
    says: "Your blog refused the token: this server never issued it, or its connection is gone.",
    fix: RECONNECT,
  },
  "refresh-token": {
    says: "Your blog refused the token: the app sent its refresh token instead of its access token.",
    fix: "A bug in the app: report it to its maker.",
  },
  code: {
    says: "Your blog refused the token: the app sent its authorization code instead of an access token.",
    fix: "A bug in the app: report it to its maker.",
  },
  malformed: {
    says: "Your blog refused the token: it is not a token of this server.",
    fix: "The app is configured with another server's token. Reconnect it.",
  },
};

const NOT_REDEEMED =
  "The app has not redeemed its code (at /token for a token, or at /auth for a sign-in): it may have failed to reach this server, or given up. Try again; if it repeats, the app's logs say why.";

const TOKEN_IN_HAND =
  "The app holds a token now. If it still says it is not connected, it never called your MCP server with it: run Check my MCP server below, then reconnect; for claude.ai, report the connection's reference (ofid_…) to Anthropic.";

/** A step's words: `fix` for a step that failed, `note` (what comes next) for one that did not. */
function stepView(step: StoredStep, last: boolean, signedIn: boolean): ConnectionStepView {
  const base = { at: step.at, step: step.step, ok: step.ok, ...(step.error ? { error: logText(step.error) } : {}) };
  const withFix = (says: string, fix?: string): ConnectionStepView => ({
    ...base,
    says,
    ...(fix ? (step.ok ? { note: fix } : { fix }) : {}),
  });
  const detail = step.detail ? `: ${step.detail}` : "";
  const refused = (what: string) => `${what} (${step.error ?? "error"})${detail}`;
  switch (step.step) {
    case "request":
      return withFix(refused("The sign-in request was refused"), REQUEST_FIXES[step.error ?? ""]);
    case "document":
      return step.ok
        ? withFix(`The sign-in request was checked and the app's information read${detail}.`)
        : withFix(
            `The app's client document could not be used${detail}`,
            "The client_id must be an https URL serving the app's metadata (JSON) with its redirect_uris, within 5 KB, without redirects. If the app's host blocks datacenter fetches, the app's maker must allow them.",
          );
    case "consent":
      if (!signedIn)
        return withFix(
          "The sign-in page was opened (by anyone who has the app's sign-in link: nobody signed in).",
          last
            ? "If it was you, the app waits for you to approve or deny. If not, anyone can open this page: nothing was approved, and nothing needs doing."
            : undefined,
        );
      return withFix(
        "The sign-in page was shown to you.",
        last ? "You did not answer, or the page was closed: the app waits for you to approve or deny." : undefined,
      );
    case "approved":
      return withFix(`You approved it; the app was sent its code${detail}.`, last ? NOT_REDEEMED : undefined);
    case "denied":
      return withFix(
        signedIn
          ? "You denied it; the app was told access_denied."
          : "It was denied on the sign-in page (Deny takes no password: you, or anyone who had the page); the app was told access_denied.",
      );
    case "code":
      return step.ok
        ? withFix("The app redeemed its code for a token.", last ? TOKEN_IN_HAND : undefined)
        : withFix(refused("The token endpoint refused the code"), TOKEN_FIXES[step.error ?? ""]);
    case "profile":
      return step.ok
        ? withFix(
            "The app redeemed its code at /auth for your profile URL: the sign-in is complete (a sign-in issues no token, so there is nothing to revoke).",
          )
        : withFix(refused("/auth refused the code"), TOKEN_FIXES[step.error ?? ""]);
    case "refresh":
      return step.ok
        ? withFix("The app renewed its token.")
        : withFix(refused("The token endpoint refused a refresh"), TOKEN_FIXES[step.error ?? ""]);
    case "resource": {
      const refusal = RESOURCE_REFUSALS[step.error ?? ""];
      return refusal
        ? withFix(refusal.says, refusal.fix)
        : withFix(`Your blog refused the token (${step.error ?? "refused"}).`);
    }
  }
}

/** The same step again (a sign-in page opened twice before an answer): said once, with how often. */
function once(steps: readonly StoredStep[]): { step: StoredStep; times: number }[] {
  const out: { step: StoredStep; times: number }[] = [];
  for (const step of steps) {
    const same = out.find(
      ({ step: s }) => s.step === step.step && s.ok === step.ok && s.error === step.error && s.detail === step.detail,
    );
    if (same) same.times++;
    else out.push({ step, times: 1 });
  }
  return out;
}

/** How far an attempt went, in words, by its last step. */
function summary(last: ConnectionStepView, signedIn: boolean): string {
  const place = STEP_PLACES[last.step] ?? last.step;
  if (!signedIn) return `Nobody signed in: ${ANONYMOUS_ENDS[last.step] ?? `stopped at ${place}`}`;
  if (!last.ok) return `Stopped at ${place}`;
  if (last.step === "profile") return "Signed in: the app has your profile URL";
  if (last.step === "approved") return "Stalled after your approval: the app has not redeemed its code";
  return `Got as far as ${place}`;
}

function attemptView(attempt: StoredAttempt, signedIn: boolean): ConnectionAttemptView {
  const distinct = once(attempt.steps);
  const steps = distinct.map(({ step, times }, i) => {
    const view = stepView(step, i === distinct.length - 1, signedIn);
    return times > 1 ? { ...view, says: view.says.replace(/\.?$/, ` (${times} times).`) } : view;
  });
  const lastStep = steps[steps.length - 1]!;
  const stalled = lastStep.step === "approved";
  return {
    startedAt: attempt.startedAt,
    endedAt: lastStep.step,
    ok: lastStep.ok && !stalled,
    says: summary(lastStep, signedIn),
    signedIn,
    steps,
  };
}

/** A client's attempts of both tiers, newest first, each marked signed in or not. */
export function connectionView(record: ConnectionRecord): ConnectionClientView {
  const shown = [
    ...record.attempts.map((a) => ({ a, signedIn: true })),
    ...record.anonymous.map((a) => ({ a, signedIn: false })),
  ].sort((x, y) => y.a.at - x.a.at);
  return {
    clientId: logText(record.clientId),
    approved: record.approved,
    lastAt: shown[0]?.a.at ?? 0,
    attempts: shown.map(({ a, signedIn }) => attemptView(a, signedIn)),
  };
}
