// The in-memory caches' bound: a Map keeps insertion order, so its first key is the oldest.

/** Sets `key` as the newest entry, first dropping the oldest ones so that at most `max` remain. */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  for (const oldest of map.keys()) {
    if (map.size < max) break;
    map.delete(oldest);
  }
  map.set(key, value);
}
