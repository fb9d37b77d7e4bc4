// Attack catalogue: a revocation undone by a refresh at the same moment. An app signs out (or the
// owner's tool revokes a stolen token) while a request holding the refresh token refreshes: the
// refresh read the grant before the revocation landed, and wrote its rotation after it. When the
// revocation was a plain write beside the refresh's conditional one, the local server lost it
// most of the time, and the refreshed tokens stayed live. A revocation is a conditional write on
// the grant as it is now, retried: whichever lands first, the grant ends revoked, with the
// refreshed tokens in it. Run against the local server (`npm test`) and the production Blobs
// double (`npm run test:production-store`): both stores, 100 races each.
import { describe, expect, it } from "vitest";
import { grantIdOf, newGrantId } from "../../../netlify/lib/protocol/grant-tokens.ts";
import { checkGrantToken, createGrant, type GrantRecord } from "../../../netlify/lib/protocol/grants.ts";
import { RECORDS } from "../../../netlify/lib/platform/records.ts";
import { fastRuntime } from "../../helpers/attack-kit.ts";
import { postToken, revoke } from "../../helpers/endpoints.ts";
import { configOf } from "../../helpers/fuzz.ts";
import { CLIENT_ID, refreshForm, type Tokens } from "../../helpers/requests.ts";
import type { TestRuntime } from "../../helpers/runtime.ts";
import { introspection } from "../../helpers/tokens.ts";

const RACES = 100;

/** A grant as a code's redemption creates it (without the sign-in before it: the race is all
 * this file is about), and its tokens. */
async function tokensFor(rt: TestRuntime): Promise<Tokens> {
  const config = configOf(rt);
  const issued = await createGrant(
    rt.store,
    { id: newGrantId(), clientId: CLIENT_ID, me: config.me, scopes: ["profile", "create"] },
    rt.now(),
    config,
  );
  return { access_token: issued.accessToken, refresh_token: issued.refreshToken, scope: "profile create" };
}

/** After a race: the grant is revoked, every token the race handed out is inactive, and the
 * revocation holds the grant's latest tokens (it landed on the latest version, so they read as
 * revoked, not as unknown). */
async function expectRevoked(rt: TestRuntime, before: Tokens, refreshed: Response): Promise<void> {
  const grant = await rt.store.get<GrantRecord>(RECORDS.grant.key(grantIdOf(before.access_token, "access")!));
  expect(grant?.revokedAt).toBe(rt.now());
  expect(await introspection(rt, before.access_token)).toEqual({ active: false });
  if (refreshed.status !== 200) {
    // The revocation landed first: the refresh was refused.
    expect(refreshed.status).toBe(400);
    return;
  }
  const after = (await refreshed.json()) as Tokens;
  expect(await introspection(rt, after.access_token)).toEqual({ active: false });
  expect(await checkGrantToken(rt.store, after.access_token, "access", rt.now())).toEqual({
    live: false,
    reason: "revoked",
  });
  expect((await postToken(rt, refreshForm(after.refresh_token))).status).toBe(400);
}

describe("a revocation racing a refresh of the same grant", () => {
  it(
    `/revoke of the refresh token and a refresh with it, at once, ${RACES} times: the grant ends revoked every time`,
    { timeout: 120_000 },
    async () => {
      const rt = await fastRuntime();
      const outcomes = { refreshedFirst: 0, revokedFirst: 0 };
      for (let race = 0; race < RACES; race++) {
        const tokens = await tokensFor(rt);
        const [refreshed, revoked] = await Promise.all([
          postToken(rt, refreshForm(tokens.refresh_token)),
          revoke(rt, { token: tokens.refresh_token }),
        ]);
        expect(revoked.status).toBe(200);
        outcomes[refreshed.status === 200 ? "refreshedFirst" : "revokedFirst"]++;
        await expectRevoked(rt, tokens, refreshed);
      }
      expect(outcomes.refreshedFirst + outcomes.revokedFirst).toBe(RACES);
    },
  );

  it(
    "a rotated-out refresh token presented again (a reuse, which revokes) while the current one refreshes: revoked every time",
    { timeout: 60_000 },
    async () => {
      const rt = await fastRuntime();
      for (let race = 0; race < RACES / 4; race++) {
        const first = await tokensFor(rt);
        const current = await postToken(rt, refreshForm(first.refresh_token));
        const tokens = (await current.json()) as Tokens;
        const [refreshed, reused] = await Promise.all([
          postToken(rt, refreshForm(tokens.refresh_token)),
          postToken(rt, refreshForm(first.refresh_token)),
        ]);
        expect(reused.status).toBe(400);
        await expectRevoked(rt, tokens, refreshed);
      }
    },
  );
});
