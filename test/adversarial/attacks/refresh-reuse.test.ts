// Attack catalogue: a stolen refresh token used after its grant rotated past it. RFC 9700 4.14.2:
// a rotated-out refresh token presented again means one of two holders is not the app, so the
// whole grant is revoked, however many rotations ago it was retired, while the grant's record
// stays the same size; and a token made up to look like a retired one (grant ids are not
// secret: every access token carries one) revokes nothing.
import { describe, expect, it } from "vitest";
import { deriveKey } from "../../../netlify/lib/crypto/secrets.ts";
import { grantIdOf } from "../../../netlify/lib/protocol/grant-tokens.ts";
import type { GrantRecord } from "../../../netlify/lib/protocol/grants.ts";
import { RECORDS } from "../../../netlify/lib/platform/records.ts";
import { fastRuntime } from "../../helpers/attack-kit.ts";
import type { KeyValueStore } from "../../../netlify/lib/platform/store.ts";
import { OperationCounter } from "../../helpers/counting-store.ts";
import { endpoints, introspect, postToken, revoke } from "../../helpers/endpoints.ts";
import { TEST_SECRET } from "../../helpers/env.ts";
import { post, refreshForm, type Tokens } from "../../helpers/requests.ts";
import { testRuntime, type TestRuntime } from "../../helpers/runtime.ts";
import { expectOAuthError, introspection, tokensFor } from "../../helpers/tokens.ts";

const ROTATIONS = 25;

async function refresh(rt: TestRuntime, refreshToken: string): Promise<Tokens> {
  const response = await postToken(rt, refreshForm(refreshToken));
  expect(response.status).toBe(200);
  return (await response.json()) as Tokens;
}

/** Signs in, then rotates the refresh token `times` times: every pair of tokens, oldest first. */
async function rotated(rt: TestRuntime, times: number): Promise<Tokens[]> {
  const all = [await tokensFor(rt)];
  for (let i = 0; i < times; i++) all.push(await refresh(rt, all.at(-1)!.refresh_token));
  return all;
}

async function reuseRefused(rt: TestRuntime, refreshToken: string, description: RegExp): Promise<void> {
  const response = await postToken(rt, refreshForm(refreshToken));
  expect(response.status).toBe(400);
  expect(await response.json()).toMatchObject({
    error: "invalid_grant",
    error_description: expect.stringMatching(description),
  });
}

const grantOf = async (rt: TestRuntime, tokens: Tokens) =>
  (await rt.store.get<GrantRecord>(RECORDS.grant.key(grantIdOf(tokens.access_token, "access")!)))!;

/** A refresh token of this grant and generation, with a made-up tag (what a stranger can make). */
function forged(grantId: string, generation: number): string {
  const bytes = Buffer.alloc(32, 7);
  bytes.writeUInt32BE(generation);
  return `irt_${grantId}.${bytes.toString("base64url")}`;
}

describe("refresh token reuse, at any age", () => {
  it(`a refresh token ${ROTATIONS} rotations old, presented again, revokes the grant`, async () => {
    const rt = await fastRuntime();
    const all = await rotated(rt, ROTATIONS);
    const latest = all.at(-1)!;
    expect((await introspection(rt, latest.access_token)).active).toBe(true);

    await reuseRefused(rt, all[0]!.refresh_token, /already used/);
    expect(await introspection(rt, latest.access_token)).toEqual({ active: false });
    await expectOAuthError(await postToken(rt, refreshForm(latest.refresh_token)), 400, "invalid_grant");
    expect((await grantOf(rt, latest)).revokedAt).toBe(rt.now());
  });

  it("every generation is told: the one just before the current, and one in the middle", async () => {
    for (const age of [1, 12]) {
      const rt = await fastRuntime();
      const all = await rotated(rt, ROTATIONS);
      await reuseRefused(rt, all.at(-1 - age)!.refresh_token, /already used/);
      expect(await introspection(rt, all.at(-1)!.access_token)).toEqual({ active: false });
    }
  });

  it("a retired refresh token at /revoke revokes its grant too, at any age", async () => {
    const rt = await fastRuntime();
    const all = await rotated(rt, ROTATIONS);
    expect((await revoke(rt, { token: all[1]!.refresh_token })).status).toBe(200);
    expect(await introspection(rt, all.at(-1)!.access_token)).toEqual({ active: false });
  });

  it("the grant's record does not grow with rotations: no list of retired tokens, a generation", async () => {
    const rt = await fastRuntime();
    const all = await rotated(rt, 1);
    const size = JSON.stringify(await grantOf(rt, all[1]!)).length;
    let tokens = all[1]!;
    for (let i = 0; i < ROTATIONS; i++) tokens = await refresh(rt, tokens.refresh_token);
    const grant = await grantOf(rt, tokens);
    expect(Object.keys(grant).filter((key) => key.includes("retired"))).toEqual([]);
    expect(grant.refresh.generation).toBe(ROTATIONS + 2);
    // The generation's digits aside.
    expect(JSON.stringify(grant).length).toBeLessThanOrEqual(size + 1);
  });
});

describe("forged refresh tokens revoke nothing", () => {
  it("a token naming a grant and an earlier generation, without this server's tag, is just invalid", async () => {
    const rt = await fastRuntime();
    const all = await rotated(rt, 3);
    const latest = all.at(-1)!;
    const grantId = grantIdOf(latest.access_token, "access")!;
    for (const generation of [0, 1, 2, 3]) await reuseRefused(rt, forged(grantId, generation), /not valid/);
    // A genuine current token with its generation lowered: the tag covers the generation.
    const bytes = Buffer.from(latest.refresh_token.slice(27), "base64url");
    bytes.writeUInt32BE(1);
    await reuseRefused(rt, `${latest.refresh_token.slice(0, 27)}${bytes.toString("base64url")}`, /not valid/);
    // Another grant's genuine retired token, made to name this grant: the tag covers the grant.
    const other = await rotated(rt, 1);
    await reuseRefused(rt, `${latest.refresh_token.slice(0, 27)}${other[0]!.refresh_token.slice(27)}`, /not valid/);
    // A tag made with another server's SECRET (the same grant id and generation).
    const { newRefreshToken } = await import("../../../netlify/lib/protocol/grant-tokens.ts");
    await reuseRefused(
      rt,
      newRefreshToken(grantId, 1, deriveKey(`${TEST_SECRET}-other`, "refresh-token-tag")),
      /not valid/,
    );
    expect((await revoke(rt, { token: forged(grantId, 1) })).status).toBe(200);

    // Nothing was revoked: the app's current tokens still work.
    expect((await introspection(rt, latest.access_token)).active).toBe(true);
    expect((await grantOf(rt, latest)).revokedAt).toBeUndefined();
    await refresh(rt, latest.refresh_token);
    await refresh(rt, other.at(-1)!.refresh_token);
  });
});

/** The store, with the key of every read it is asked for. */
function readsRecorded(store: KeyValueStore, reads: string[]): KeyValueStore {
  return {
    get: (key) => (reads.push(key), store.get(key)),
    getVersioned: (key) => (reads.push(key), store.getVersioned(key)),
    set: (key, value) => store.set(key, value),
    setIfNew: (key, value) => store.setIfNew(key, value),
    setIfUnchanged: (key, value, version) => store.setIfUnchanged(key, value, version),
    delete: (key) => store.delete(key),
    list: (prefix) => store.list(prefix),
  };
}

describe("the hot paths' round trips", () => {
  it("a refresh, a reused token and introspection each read the grant once, beside the revocations", async () => {
    const reads: string[] = [];
    const counter = new OperationCounter();
    const rt = await testRuntime({ wrapStore: (store) => counter.wrap(readsRecorded(store, reads)) });
    const all = await rotated(rt, ROTATIONS);
    const grantKey = RECORDS.grant.key(grantIdOf(all[0]!.access_token, "access")!);
    const revocationsKey = RECORDS.revocations.key();
    const ofTheCheck = () => reads.filter((key) => key === grantKey || key === revocationsKey).sort();

    // The answer's own reads: what the platform's waitUntil takes (the app's summary) comes after.
    const afterAnswer: Promise<unknown>[] = [];
    const answered = (fields: Record<string, string>) =>
      endpoints.token(post("/token", fields), rt, { waitUntil: (work) => afterAnswer.push(work) });
    reads.length = 0;
    const refreshed = await answered(refreshForm(all.at(-1)!.refresh_token));
    expect(ofTheCheck()).toEqual([grantKey, revocationsKey]);
    expect(refreshed.status).toBe(200);
    await Promise.all(afterAnswer.splice(0));

    reads.length = 0;
    expect((await introspect(rt, all.at(-1)!.access_token)).status).toBe(200);
    expect(ofTheCheck()).toEqual([grantKey, revocationsKey]);

    // The reuse: the grant as read is revoked with one write, not read again first.
    reads.length = 0;
    counter.reset();
    const reused = await answered(refreshForm(all[0]!.refresh_token));
    expect(ofTheCheck()).toEqual([grantKey, revocationsKey]);
    expect(counter.snapshot()).toMatchObject({ deletes: 0, lists: 0 });
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({
      error: "invalid_grant",
      error_description: expect.stringMatching(/already used/),
    });
    await Promise.all(afterAnswer.splice(0));
  });
});
