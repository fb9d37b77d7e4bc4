// A conditional write that lost to another writer of the same key is retried after a short
// random pause: writers that collided and retried at once would collide again (and run out
// of tries together when several requests of one app arrive at once).

const LONGEST_PAUSE_MS = 40;

/** A random pause of up to 2^attempt ms (at most LONGEST_PAUSE_MS) before retry `attempt`. */
export function collisionPause(attempt: number, random: () => number = Math.random): Promise<void> {
  const ms = Math.min(2 ** attempt, LONGEST_PAUSE_MS) * random();
  return new Promise((resolve) => setTimeout(resolve, ms));
}
