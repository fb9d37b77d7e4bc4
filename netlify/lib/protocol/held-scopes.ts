// The scopes an app holds now: those of its live grants, counted per scope by the day each
// grant's expiry falls on (as its summary counts the grants themselves), so that an expired
// grant's scopes leave on their own, a refresh moves them to its new day, and a revocation
// takes them out. Part of the app's summary (app-summaries.ts); pure arithmetic, no storage.
import { HELD_SCOPES } from "../core/policy.ts";
import { dayOf } from "../core/time.ts";

export interface HeldScopes {
  /** Per scope, its live grants by the day (since the epoch) their expiry falls on. */
  heldScopes: Record<string, Record<string, number>>;
  /** The last day a grant holding scopes past HELD_SCOPES lives to (they were not counted). */
  moreScopesUntil?: number;
}

/** What a summary holds besides: its live grants by day. */
interface Counted extends HeldScopes {
  liveByDay: Record<string, number>;
}

/** One grant's scopes counted in (by 1) or out (by -1) at its expiry. (A Map: a scope is any
 * scope-token the owner approved, `__proto__` included, never an object's own property name.) */
export function countScopes(summary: Counted, scopes: readonly string[], expiresAt: number, by: 1 | -1): HeldScopes {
  const day = String(dayOf(expiresAt));
  const held = new Map(
    Object.entries(summary.heldScopes).map(([scope, days]) => [scope, new Map(Object.entries(days))]),
  );
  let moreScopesUntil = summary.moreScopesUntil;
  for (const scope of new Set(scopes)) {
    const days = held.get(scope);
    if (!days && by === 1 && held.size >= HELD_SCOPES) {
      moreScopesUntil = Math.max(moreScopesUntil ?? 0, Number(day));
      continue;
    }
    if (!days && by === -1) continue;
    const next = days ?? new Map<string, number>();
    const count = (next.get(day) ?? 0) + by;
    if (count > 0) next.set(day, count);
    else next.delete(day);
    if (next.size > 0) held.set(scope, next);
    else held.delete(scope);
  }
  const heldScopes = Object.fromEntries([...held].map(([scope, days]) => [scope, Object.fromEntries(days)]));
  return { heldScopes, ...(moreScopesUntil !== undefined ? { moreScopesUntil } : {}) };
}

/** The counts without the days before `day`: their grants have expired. */
export function daysAhead(summary: Counted, day: number): Counted {
  const live = (days: Record<string, number>) =>
    Object.fromEntries(Object.entries(days).filter(([d]) => Number(d) >= day));
  const held = Object.entries(summary.heldScopes).flatMap(([scope, days]) => {
    const left = live(days);
    return Object.keys(left).length > 0 ? [[scope, left] as const] : [];
  });
  const more = summary.moreScopesUntil;
  return {
    liveByDay: live(summary.liveByDay),
    heldScopes: Object.fromEntries(held),
    ...(more !== undefined && more >= day ? { moreScopesUntil: more } : {}),
  };
}

/** The scopes its live grants hold now, each once, with how many of them hold it; and whether
 * some live grant holds scopes beyond those (past HELD_SCOPES). */
export function liveScopes(summary: Counted, now: number): { scopes: Record<string, number>; more: boolean } {
  const today = dayOf(now);
  const scopes = Object.entries(summary.heldScopes).flatMap(([scope, days]) => {
    const grants = Object.entries(days).reduce((sum, [day, count]) => (Number(day) >= today ? sum + count : sum), 0);
    return grants > 0 ? [[scope, grants] as const] : [];
  });
  return { scopes: Object.fromEntries(scopes), more: (summary.moreScopesUntil ?? -1) >= today };
}
