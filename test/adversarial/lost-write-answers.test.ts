// A create-if-new write that lands but whose answer is lost (a dropped connection) is retried by
// the Blobs client, which then meets its own write (412) and reports "not written". Against the
// production Blobs double, which does exactly that, each create-if-new write of a sign-in and a
// redemption is hit once: the request still succeeds, and nothing is taken for a replay.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startProductionBlobs, type BlobsRequest, type ProductionBlobs } from "../helpers/production-blobs.ts";
import { testRuntime } from "../helpers/runtime.ts";
import { postAuth, postToken, signInForCode } from "../helpers/endpoints.ts";
import { consoleGet, consoleSignIn } from "../helpers/console.ts";
import { codeForm, type Tokens } from "../helpers/requests.ts";
import { introspection } from "../helpers/tokens.ts";

let blobs: ProductionBlobs;
beforeAll(async () => {
  blobs = await startProductionBlobs();
});
afterAll(async () => {
  vi.restoreAllMocks();
  await blobs?.stop();
});

const lostAnswer = (prefix: string) =>
  blobs.inject({
    match: (r: BlobsRequest) =>
      r.operation === "set" && r.condition === "if-none-match" && r.key?.startsWith(prefix) === true,
    fault: "drop",
    when: "after",
    times: 1,
  });

describe("a create-if-new write whose answer was lost after it landed", () => {
  it.each(["used-codes/", "grants/"])("redeeming a code, on %s: 200, and the token is active", async (prefix) => {
    const rt = await testRuntime({ connection: blobs.connection });
    const signedIn = await signInForCode(rt);
    const fault = lostAnswer(prefix);
    const answer = await postToken(rt, codeForm(signedIn));
    fault.remove();
    expect(fault.hits).toBe(1);
    expect(answer.status).toBe(200);
    const tokens = (await answer.json()) as Tokens;
    expect(await introspection(rt, tokens.access_token)).toMatchObject({ active: true });
  });

  it("redeeming a code for the profile at POST /auth (used-codes/): 200 with the profile", async () => {
    const rt = await testRuntime({ connection: blobs.connection });
    const signedIn = await signInForCode(rt, null);
    const fault = lostAnswer("used-codes/");
    const answer = await postAuth(rt, codeForm(signedIn));
    fault.remove();
    expect(fault.hits).toBe(1);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ me: expect.any(String) });
  });

  it("issuing a code at sign-in (codes/): the code redeems", async () => {
    const rt = await testRuntime({ connection: blobs.connection });
    const fault = lostAnswer("codes/");
    const signedIn = await signInForCode(rt);
    fault.remove();
    expect(fault.hits).toBe(1);
    expect((await postToken(rt, codeForm(signedIn))).status).toBe(200);
  });

  it("the owner signing in to the console (sessions/): signed in", async () => {
    const rt = await testRuntime({ connection: blobs.connection });
    const fault = lostAnswer("sessions/");
    const cookie = await consoleSignIn(rt);
    fault.remove();
    expect(fault.hits).toBe(1);
    expect((await consoleGet(rt, { cookie })).status).toBe(200);
  });
});
