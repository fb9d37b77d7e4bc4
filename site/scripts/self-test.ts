// The self-test's callback: check state and iss, redeem the code at POST /auth (no token),
// and show what came back.
import { SELF_TEST_KEY, selfTestClient, type PendingSignIn } from "./self-test-flow.ts";

const status = document.getElementById("result-status")!;
const errorBox = document.getElementById("result-error")!;

function fail(message: string): void {
  status.textContent = "The test sign-in did not complete.";
  errorBox.textContent = message;
  errorBox.hidden = false;
}

async function finish(): Promise<void> {
  const query = new URLSearchParams(location.search);
  const stored = sessionStorage.getItem(SELF_TEST_KEY);
  sessionStorage.removeItem(SELF_TEST_KEY);
  if (!stored) return fail("There is no test sign-in in progress. Start one from the home page.");
  const pending = JSON.parse(stored) as PendingSignIn;

  if (query.get("error"))
    return fail(`The server answered ${query.get("error")}: ${query.get("error_description") ?? ""}`);
  if (query.get("state") !== pending.state) return fail("The state does not match the one this test sent.");
  if (query.get("iss") !== `${pending.base}/`)
    return fail(`The issuer ${query.get("iss") ?? "(none)"} is not ${pending.base}/.`);
  const code = query.get("code");
  if (!code) return fail("No authorization code came back.");
  history.replaceState(null, "", location.pathname);

  const { clientId, redirectUri } = selfTestClient(pending.base);
  const response = await fetch(`${pending.base}/auth`, {
    method: "POST",
    headers: { Accept: "application/json" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      client_id: clientId,
      redirect_uri: redirectUri,
      code_verifier: pending.verifier,
    }),
  });
  const body = (await response.json()) as {
    me?: string;
    profile?: unknown;
    error?: string;
    error_description?: string;
  };
  if (!response.ok || !body.me)
    return fail(`Redeeming the code failed: ${body.error ?? response.status} ${body.error_description ?? ""}`);

  status.textContent = "It works: the sign-in completed and the code was redeemed.";
  document.getElementById("result-me")!.textContent = body.me;
  document.getElementById("result-profile")!.textContent = JSON.stringify(body.profile ?? null, null, 2);
  document.getElementById("result")!.hidden = false;
}

finish().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));
