// How often the console may check an MCP server: MCP_CHECKS_PER_MINUTE across all instances,
// counted in one small record per minute (a read and a conditional write), swept once old.
// Each check makes the server fetch two URLs the owner gave: a stolen session must not turn it
// into a fetching machine.
import { RECORDS } from "../platform/records.ts";
import type { KeyValueStore } from "../platform/store.ts";
import { collisionPause } from "../platform/collision-pause.ts";
import { MCP_CHECKS_PER_MINUTE } from "../core/policy.ts";
import { MINUTE } from "../core/time.ts";

interface CheckCount {
  kind: "mcp-check-count";
  count: number;
  expiresAt: number;
}

/** Counts one check; the seconds to wait when this minute's checks are used up, else 0. */
export async function claimMcpCheck(store: KeyValueStore, now: number): Promise<number> {
  const minute = Math.floor(now / MINUTE);
  const key = RECORDS.mcpCheckCount.key(minute);
  const wait = Math.max(1, Math.ceil(((minute + 1) * MINUTE - now) / 1000));
  for (let tries = 0; tries < 4; tries++) {
    if (tries > 0) await collisionPause(tries);
    const { value, version } = await store.getVersioned<CheckCount>(key);
    const count = value?.kind === "mcp-check-count" ? value.count : 0;
    if (count >= MCP_CHECKS_PER_MINUTE) return wait;
    const next: CheckCount = { kind: "mcp-check-count", count: count + 1, expiresAt: (minute + 2) * MINUTE };
    if (await store.setIfUnchanged(key, next, version)) return 0;
  }
  return wait;
}
