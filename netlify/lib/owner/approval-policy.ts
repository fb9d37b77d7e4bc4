// Who may approve a sign-in request, and with what: one decision table (SESSION_TABLE), asked by
// GET /auth (the page's offer, error redirects, prompt=none) and by the approve step, made once per
// request (`approvalPolicyOf`), reading the session, the app's approval and the passkeys once. The
// password or a passkey may always approve (the passkeys and PASSWORD_LOGIN decide which); nothing
// is approved without the owner's click, so prompt=consent asks for nothing more and prompt=none is
// always refused: consent_required where the session could approve alone, else login_required.
import type { ClientRead } from "../core/client-shape.ts";
import type { ConfirmReason, SignInOffer } from "../pages/sign-in-fragment.ts";
import type { Config } from "../platform/config.ts";
import type { KeyValueStore } from "../platform/store.ts";
import type { PromptValue } from "../pages/sign-in-fragment.ts";
import { tickedByDefault } from "../protocol/scopes.ts";
import {
  approvalCovers,
  approvalOf,
  approvesRedirect,
  cannotTellAccountsApart,
  sharesOriginWithSite,
  type AppApproval,
} from "./app-approvals.ts";
import { listPasskeys, passwordLoginAllowed, type PasskeyRecord } from "./passkey-records.ts";
import { currentSession, type SessionRecord } from "./sessions.ts";

export interface PolicyRequest {
  clientId: string;
  redirectUri: string;
  /** The resource the token is to be for (RFC 8707), if the request names one. */
  resource?: string;
  scopes: readonly string[];
  defaultScopes?: readonly string[];
  prompt?: readonly PromptValue[];
  /** What was read to know the app (absent: nothing). */
  clientRead?: ClientRead;
  /** Whether the app registered itself here (POST /register). */
  client?: { registered?: true };
}

/** The request being answered (an endpoint's RequestContext is one). */
interface PolicyInput {
  /** The request whose session cookie counts. */
  req: Request;
  config: Config;
  rt: { store: KeyValueStore; now: () => number };
  /** The request's own state (http/endpoint.ts): made once per request. */
  once: <T>(key: object, make: () => T) => T;
}

export interface ApprovalPolicy {
  session(): Promise<SessionRecord | null>;
  /** Whether the owner approved this redirect URI for the app that way (errors may go there). */
  approvedRedirect(clientId: string, redirectUri: string): Promise<boolean>;
  /** Whether the live session alone may approve the request with these scopes ticked. */
  sessionApproves(request: PolicyRequest, scopes: readonly string[]): Promise<boolean>;
  /** What the page offers for the request (as its scopes are ticked by default). */
  offer(request: PolicyRequest): Promise<SignInOffer>;
  /** Starts the reads `offer` will make beyond the approval (the passkeys, the session), so that
   * they travel beside it: GET /auth then waits one round trip, not two. */
  readAhead(): void;
  /** prompt=none: the refusal that applies (nothing is approved without a click). */
  silentRefusal(request: PolicyRequest): Promise<"login_required" | "consent_required">;
}

/** What decides a request: the password or a passkey (with what the page says to a signed-in
 * owner about why), no session to approve with, or the live session alone. */
type Verdict = ConfirmReason | "no-session" | "session";

interface Facts {
  config: Config;
  request: PolicyRequest;
  /** Whether this device has a live session (read on first ask). */
  signedIn: () => Promise<boolean>;
  /** Whether the owner approved this much for the app before with the password or a passkey. */
  approvedBefore: () => Promise<boolean>;
}

/** Whether a live session alone may approve a request, row by row: the first row that holds
 * decides. Each row says why. */
const SESSION_TABLE: readonly { when: (facts: Facts) => boolean | Promise<boolean>; verdict: Verdict; why: string }[] =
  [
    {
      when: ({ config }) => sharesOriginWithSite(config),
      verdict: "shared-origin",
      why: "this server shares the owner's site's origin: any script there could post the form with the session (app-approvals.ts sharesOriginWithSite)",
    },
    {
      when: ({ request }) => request.prompt?.includes("login") === true,
      verdict: "login",
      why: "the app asks for the owner to sign in again (prompt=login)",
    },
    {
      when: ({ request }) => cannotTellAccountsApart(request) && request.client?.registered === true,
      verdict: "registered-app",
      why: "an app that registered itself, answering to the web or an app link: each registration is a new client_id, and any app on a device may claim a scheme",
    },
    {
      when: ({ request }) => cannotTellAccountsApart(request),
      verdict: "shared-app",
      why: "every user of a platform signs in as this app, answering to the web: a stranger's link to their own account looks the same (app-approvals.ts cannotTellAccountsApart)",
    },
    { when: async ({ signedIn }) => !(await signedIn()), verdict: "no-session", why: "no live session on this device" },
    {
      when: ({ approvedBefore }) => approvedBefore(),
      verdict: "session",
      why: "the password or a passkey approved this much for the app before: redirect URI, resource and scopes (app-approvals.ts)",
    },
    {
      when: () => true,
      verdict: "new-app",
      why: "anything else: the password or a passkey approves it, and it is remembered for the app",
    },
  ];

async function verdictOf(facts: Facts): Promise<Verdict> {
  for (const row of SESSION_TABLE) if (await row.when(facts)) return row.verdict;
  throw new TypeError("the approval table ends with a row that always holds");
}

/** The policy of the request being answered, made once per request: GET /auth asks it several
 * times (the error-redirect trust rule, the offer, prompt=none), and each read is one round trip. */
export function approvalPolicyOf(input: PolicyInput): ApprovalPolicy {
  return input.once(approvalPolicy, () => approvalPolicy(input));
}

function approvalPolicy({ req, config, rt: { store, now: clock } }: PolicyInput): ApprovalPolicy {
  const now = clock();
  let session: Promise<SessionRecord | null> | undefined;
  let passkeys: Promise<PasskeyRecord[]> | undefined;
  const approvals = new Map<string, Promise<AppApproval | null>>();
  const approval = (clientId: string): Promise<AppApproval | null> => {
    let read = approvals.get(clientId);
    if (!read) approvals.set(clientId, (read = approvalOf(store, clientId, now)));
    return read;
  };
  const verdict = (request: PolicyRequest, scopes: readonly string[]) =>
    verdictOf({
      config,
      request,
      signedIn: async () => (await policy.session()) !== null,
      approvedBefore: async () =>
        approvalCovers(await approval(request.clientId), request.redirectUri, request.resource, scopes),
    });

  const policy: ApprovalPolicy = {
    session: () => (session ??= currentSession(store, req, config, now)),
    approvedRedirect: async (clientId, redirectUri) => approvesRedirect(await approval(clientId), redirectUri),
    sessionApproves: async (request, scopes) => (await verdict(request, scopes)) === "session",
    async offer(request) {
      // The passkeys are read beside the session and the approval (one round trip, not two).
      const [decided, known] = await Promise.all([
        verdict(request, tickedByDefault(request)),
        (passkeys ??= listPasskeys(store)),
      ]);
      if (decided === "session") return { session: true };
      const offer: SignInOffer = {
        session: false,
        passkey: known.length > 0,
        password: passwordLoginAllowed(config.passwordLogin, known),
      };
      if (decided !== "no-session" && (await policy.session())) offer.signedIn = decided;
      return offer;
    },
    readAhead() {
      // A request refused on the way has read the passkeys for nothing; a failure of a read is
      // answered where the offer awaits it, never as an unhandled rejection.
      for (const read of [(passkeys ??= listPasskeys(store)), policy.session()]) read.catch(() => undefined);
    },
    async silentRefusal(request) {
      return (await verdict(request, tickedByDefault(request))) === "session" ? "consent_required" : "login_required";
    },
  };
  return policy;
}
