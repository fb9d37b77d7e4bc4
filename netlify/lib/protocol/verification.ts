// Access token verification, shared by POST /introspect, the legacy GET /token and
// GET /userinfo: one storage read (the grant), plus at most one usage write per grant every
// few minutes per function instance.
import { grantForToken, usageKey, type GrantRecord } from "./grants.ts";
import type { KeyValueStore } from "../platform/store.ts";

const USAGE_WRITE_INTERVAL_MS = 5 * 60 * 1000;
const lastUsageWrite = new Map<string, number>();

export interface Usage {
  lastUsedAt: number;
  expiresAt: number;
}

/** The live grant of an access token, or null; records the use (rate-limited). */
export async function verifyAccessToken(store: KeyValueStore, token: string, now: number): Promise<GrantRecord | null> {
  const grant = await grantForToken(store, token, "access", now);
  if (!grant) return null;
  const last = Math.max(grant.lastUsedAt, lastUsageWrite.get(grant.id) ?? 0);
  if (now - last >= USAGE_WRITE_INTERVAL_MS) {
    lastUsageWrite.set(grant.id, now);
    if (lastUsageWrite.size > 1000) lastUsageWrite.delete(lastUsageWrite.keys().next().value!);
    await store.set(usageKey(grant.id), { lastUsedAt: now, expiresAt: grant.expiresAt } satisfies Usage);
  }
  return grant;
}

export type IntrospectionBody =
  | { active: false }
  | { active: true; me: string; client_id: string; scope: string; exp: number; iat: number };

/** RFC 7662 with the IndieAuth `me`: exactly `{active: false}` for anything not live. */
export function introspectionBody(grant: GrantRecord | null): IntrospectionBody {
  if (!grant) return { active: false };
  return {
    active: true,
    me: grant.me,
    client_id: grant.clientId,
    scope: grant.accessScopes.join(" "),
    exp: Math.floor(grant.access.expiresAt / 1000),
    iat: Math.floor(grant.access.issuedAt / 1000),
  };
}

