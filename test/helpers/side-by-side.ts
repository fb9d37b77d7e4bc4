// Two local servers from one checkout, side by side: what the first serves while the second
// starts. netlify-cli writes each function's entry module into its working folder's
// .netlify/functions-serve/ when it starts; two servers sharing that folder (PLATFORM-NOTES)
// had the first answer 500 "Cannot find module …/___netlify-entry-point.mjs".
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** Every module netlify-cli serves functions from under `dirs`, with its inode and mtime. */
export function servedModules(...dirs: string[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const dir of dirs) {
    if (!existsSync(dir)) continue;
    for (const path of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
      if (!path.endsWith("___netlify-entry-point.mjs")) continue;
      const stat = statSync(join(dir, path));
      found.set(join(dir, path), `${stat.ino}:${stat.mtimeMs}`);
    }
  }
  return found;
}

/** The statuses of function requests to `base` (two functions at a time) sent until `until`
 * settles (at most 2,000 rounds); rejects as `until` does. */
export async function functionStatusesUntil(base: string, until: Promise<unknown>): Promise<number[]> {
  const statuses: number[] = [];
  let settled = false;
  const watched = until.finally(() => (settled = true));
  watched.catch(() => undefined);
  for (let i = 0; i < 2000 && !settled; i++) {
    const [metadata, introspect] = await Promise.all([
      fetch(`${base}/.well-known/oauth-authorization-server`),
      fetch(`${base}/introspect`, { method: "POST", body: new URLSearchParams({ token: "not-a-token" }) }),
    ]);
    statuses.push(metadata.status, introspect.status);
  }
  await watched;
  return statuses;
}
