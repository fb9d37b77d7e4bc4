// Client pages that were too slow, remembered so that a page which trickles its answer cannot
// hold GET /auth again and again: that exact client_id is not fetched again for a minute, and a
// registrable domain past SLOW_PER_DOMAIN slow client_ids gets the short budget (a rate, never a
// verdict). Only slowness is remembered. One record per registrable domain, in 4,096 slots
// (platform/records.ts). See docs/security.md and docs/data-model.md ("slow client fetches").
import { importCommonJs } from "../core/commonjs.ts";
import { loadOnce } from "../core/load-once.ts";
import { secretHash } from "../crypto/secrets.ts";
import { RECORDS } from "../platform/records.ts";
import type { KeyValueStore } from "../platform/store.ts";
import { FAILURE_TTL_MS, SLOW_PER_DOMAIN } from "../core/policy.ts";

interface SlowClients {
  kind: "slow-client-fetches";
  domain: string;
  /** Each slow client_id (its hash) and when it is forgotten; at most SLOW_PER_DOMAIN. */
  slow: { client: string; until: number }[];
  expiresAt: number;
}

/** What is remembered of a client_id's domain when it is about to be fetched. */
export interface FetchMemory {
  /** This very client_id was too slow within the last minute: it is not fetched again yet. */
  slowRecently: boolean;
  /** Its domain had SLOW_PER_DOMAIN slow client_ids within the last minute: the short budget. */
  domainBusy: boolean;
  /** Remembers that this client_id was too slow (nothing, when its domain is busy). */
  rememberSlow(now: number): Promise<void>;
}

export interface FetchFailures {
  recall(clientId: URL, now: number): Promise<FetchMemory>;
}

const tldts = loadOnce(() => importCommonJs(() => import("tldts")));

/** The registrable domain of a host name (chatgpt.com for auth.chatgpt.com), or the name itself
 * where the list knows none (a single label). Client ids are never IP literals (core/urls.ts). */
export async function registrableDomain(hostname: string): Promise<string> {
  const { getDomain } = await tldts();
  return getDomain(hostname) ?? hostname;
}

const clientHash = (clientId: URL) => secretHash(clientId.href).slice(0, 22);

function live(record: SlowClients | null, domain: string, now: number): SlowClients["slow"] {
  if (record?.kind !== "slow-client-fetches" || record.domain !== domain || !Array.isArray(record.slow)) return [];
  return record.slow.filter(
    (entry: SlowClients["slow"][number] | null) => typeof entry?.client === "string" && entry.until > now,
  );
}

export function storedFetchFailures(store: KeyValueStore): FetchFailures {
  return {
    async recall(clientId, now) {
      const domain = await registrableDomain(clientId.hostname);
      const key = RECORDS.clientFailure.key(domain);
      // Not readable now: as if nothing were remembered.
      const slow = live(await store.get<SlowClients>(key).catch(() => null), domain, now);
      const client = clientHash(clientId);
      const domainBusy = slow.length >= SLOW_PER_DOMAIN;
      return {
        slowRecently: slow.some((entry) => entry.client === client),
        domainBusy,
        async rememberSlow(at) {
          if (domainBusy) return;
          try {
            // Read again: others may have been slow under this domain while this one waited.
            const others = live(await store.get<SlowClients>(key), domain, at).filter(
              (entry) => entry.client !== client,
            );
            if (others.length >= SLOW_PER_DOMAIN) return;
            const entries = [...others, { client, until: at + FAILURE_TTL_MS }];
            await store.set(key, {
              kind: "slow-client-fetches",
              domain,
              slow: entries,
              expiresAt: at + FAILURE_TTL_MS,
            } satisfies SlowClients);
          } catch {
            // Not remembered: the next request fetches again, within the same budget.
          }
        },
      };
    },
  };
}
