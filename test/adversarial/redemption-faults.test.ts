// A code redemption that storage fails at any one step, either before the step reaches storage
// or after (done, but its answer lost): the client is answered 200 (its tokens work) or 503
// (the code still redeems: a retry gets the tokens), never a used-up code and no token; and
// the console counts the grant once either way.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AccountOverview } from "../../netlify/lib/pages/account-view.ts";
import { fastRuntime } from "../helpers/attack-kit.ts";
import { consoleGet, consoleSignIn } from "../helpers/console.ts";
import { postToken, signInForCode } from "../helpers/endpoints.ts";
import { failingStore, type FailureTiming } from "../helpers/failing-store.ts";
import { CLIENT_ID, codeForm, type Tokens } from "../helpers/requests.ts";
import { introspection } from "../helpers/tokens.ts";
import type { TestRuntime } from "../helpers/runtime.ts";

beforeEach(() => {
  // The server logs each fault; kept out of the test output.
  vi.spyOn(console, "error").mockImplementation(() => undefined);
  vi.spyOn(console, "warn").mockImplementation(() => undefined);
});
afterEach(() => vi.restoreAllMocks());

async function grantsShown(rt: TestRuntime, cookie: string): Promise<number | undefined> {
  const view = (await (await consoleGet(rt, { cookie })).json()) as AccountOverview;
  return view.apps.find((app) => app.clientId === CLIENT_ID)?.grants;
}

/** A healthy redemption's storage operations, in order (its app's count after the answer too:
 * without the platform's waitUntil, as here, the answer waits for it). */
async function redemptionSteps(rt: TestRuntime): Promise<string[]> {
  const failing = failingStore(rt.store);
  const signedIn = await signInForCode(rt);
  failing.arm(0, "before");
  expect((await postToken({ ...rt, store: failing.store }, codeForm(signedIn))).status).toBe(200);
  return failing.operations;
}

describe.each<FailureTiming>(["before", "after"])(
  "a code redemption whose storage fails at one step (%s the operation)",
  (timing) => {
    it(
      "at every step: 200 with working tokens, or 503 and the code still redeems; the console counts each grant once",
      { timeout: 120_000 },
      async () => {
        const rt = await fastRuntime();
        const steps = await redemptionSteps(rt);
        const cookie = await consoleSignIn(rt);
        expect(steps.length).toBeGreaterThanOrEqual(4);
        for (let n = 1; n <= steps.length; n++) {
          const step = `step ${n} of ${steps.length}, ${steps[n - 1]}`;
          const signedIn = await signInForCode(rt);
          const failing = failingStore(rt.store);
          failing.arm(n, timing);
          const first = await postToken({ ...rt, store: failing.store }, codeForm(signedIn));
          expect([200, 503], step).toContain(first.status);
          const answer = first.status === 200 ? first : await postToken(rt, codeForm(signedIn));
          expect(answer.status, `${step}: the code redeems after the 503`).toBe(200);
          const tokens = (await answer.json()) as Tokens;
          expect(await introspection(rt, tokens.access_token), step).toMatchObject({ active: true });
          expect(await grantsShown(rt, cookie), step).toBe(n + 1);
        }
      },
    );
  },
);
