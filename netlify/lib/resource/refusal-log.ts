// A token the blog's function refused, told to the connection doctor (owner/connection-log.ts):
// on the same site only (where the function shares the server's store), never awaited by the
// answer (best effort: a platform may stop the function once it has answered). The client is read from the token's grant in the background.
import { logConnectionSteps, attemptLinks } from "../owner/connection-log.ts";
import { RECORDS } from "../platform/records.ts";
import { blobStore, type KeyValueStore } from "../platform/store.ts";
import { grantIdOf } from "../protocol/grant-tokens.ts";
import type { GrantRecord } from "../protocol/grants.ts";
import type { ResourceSettings } from "./settings.ts";

export type RefusalLog = (token: string, reason: string) => void;

/** The logger of one resource server: a no-op in introspection mode (another site's store). */
export function refusalLog(settings: ResourceSettings | undefined, store: KeyValueStore | undefined, now: () => number): RefusalLog {
  if (settings?.mode !== "same-site") return () => {};
  let shared: KeyValueStore | undefined;
  return (token, reason) => {
    const grantId = grantIdOf(token, "access") ?? grantIdOf(token, "refresh");
    if (!grantId) return;
    const at = now();
    const target = { store: (shared ??= store ?? blobStore(settings.storeName)) };
    // Not awaited: the refusal is answered at once (the resource API has no waitUntil).
    void logConnectionSteps(target, async () => {
      const grant = await target.store.get<GrantRecord>(RECORDS.grant.key(grantId));
      if (typeof grant?.clientId !== "string") return [];
      return [{ clientId: grant.clientId, step: "resource", ok: false, at, error: reason, links: [attemptLinks.grant(grantId)] }];
    });
  };
}
