// Many live grants, stored fast: the records exactly as a code's redemption writes them (with
// their tokens' hashes), written in parallel batches, and each app's summary counted once
// with all of its grants. Shared by the scale test and the bench. No vitest here.
import { newGrantId, newGrantToken } from "../../netlify/lib/protocol/grant-tokens.ts";
import { secretHash } from "../../netlify/lib/crypto/secrets.ts";
import { summariseGrants } from "../../netlify/lib/protocol/app-summaries.ts";
import type { GrantRecord } from "../../netlify/lib/protocol/grants.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";
import type { KeyValueStore } from "../../netlify/lib/platform/store.ts";

export interface SeededGrant {
  clientId: string;
  accessToken: string;
  refreshToken: string;
}

const AT_ONCE = 64;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Stores `count` grants of each app, created over the last hours before `now`. */
export async function seedGrants(
  store: KeyValueStore,
  me: string,
  apps: Readonly<Record<string, number>>,
  now: number,
): Promise<SeededGrant[]> {
  const records: GrantRecord[] = [];
  const seeded: SeededGrant[] = [];
  for (const [clientId, count] of Object.entries(apps)) {
    for (let i = 0; i < count; i++) {
      const id = newGrantId();
      const accessToken = newGrantToken("access", id);
      const refreshToken = newGrantToken("refresh", id);
      const createdAt = now - 1000 - (i % 300) * 60_000;
      const access = { hash: secretHash(accessToken), issuedAt: createdAt, expiresAt: createdAt + 30 * DAY_MS };
      const refresh = {
        hash: secretHash(refreshToken),
        issuedAt: createdAt,
        expiresAt: createdAt + 90 * DAY_MS,
        generation: 1,
      };
      records.push({
        kind: "grant",
        id,
        clientId,
        me,
        client: { name: `App at ${new URL(clientId).host}` },
        scopes: ["profile", "create"],
        accessScopes: ["profile", "create"],
        createdAt,
        lastUsedAt: createdAt,
        expiresAt: refresh.expiresAt,
        access,
        refresh,
      });
      seeded.push({ clientId, accessToken, refreshToken });
    }
  }
  for (let i = 0; i < records.length; i += AT_ONCE) {
    await Promise.all(records.slice(i, i + AT_ONCE).map((grant) => store.setIfNew(RECORDS.grant.key(grant.id), grant)));
  }
  for (const clientId of Object.keys(apps))
    await summariseGrants(
      store,
      records.filter((grant) => grant.clientId === clientId),
    );
  return seeded;
}

/** Runs `work` on every item, `atOnce` at a time. */
export async function inBatches<T, R>(
  items: readonly T[],
  atOnce: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += atOnce) out.push(...(await Promise.all(items.slice(i, i + atOnce).map(work))));
  return out;
}
