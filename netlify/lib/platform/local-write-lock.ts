// One writer at a time per key, for the local Blobs server only (see store.ts), which checks a
// write's condition and then writes, with awaits in between. Its callers are worker threads and
// test processes, so an in-memory lock would serialise nothing: the lock is a directory, made
// atomically (mkdir fails if it exists) in the temporary folder. A deployed function never takes
// one, so the file system modules load with the first lock.
import { createHash } from "node:crypto";
import { loadOnce } from "../core/load-once.ts";

const fileSystem = loadOnce(async () => {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- node:path's join does not use `this`.
  const [fs, { tmpdir }, { join }] = await Promise.all([
    import("node:fs/promises"),
    import("node:os"),
    import("node:path"),
  ]);
  return { ...fs, folder: join(tmpdir(), "netlify-indieauth-blob-locks"), join };
});

/** A lock older than this was left by a writer that died holding it (a stopped server): it is
 * broken. Longer than any write holds it: the store ends a local operation within 28 seconds
 * (store.ts, LOCAL_STORAGE_DEADLINE_MS), and its signal then ends the holding too. */
const ABANDONED_AFTER_MS = 40_000;
const FIRST_WAIT_MS = 1;
const LONGEST_WAIT_MS = 16;

function isCode(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;
}

type FileSystem = Awaited<ReturnType<typeof fileSystem>>;

async function abandoned({ stat }: FileSystem, path: string): Promise<boolean> {
  try {
    return Date.now() - (await stat(path)).mtimeMs > ABANDONED_AFTER_MS;
  } catch {
    return false; // released in the meantime: try again
  }
}

async function acquire(fs: FileSystem, path: string, signal: AbortSignal): Promise<void> {
  const { mkdir, rm, folder } = fs;
  for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, LONGEST_WAIT_MS)) {
    // The caller gave up (its deadline passed): a write must not land after it answered.
    signal.throwIfAborted();
    try {
      await mkdir(path);
      return;
    } catch (error) {
      // The folder is made on first use (and again if the temporary folder was cleaned).
      if (isCode(error, "ENOENT")) {
        await mkdir(folder, { recursive: true });
        continue;
      }
      if (!isCode(error, "EEXIST")) throw error;
    }
    if (await abandoned(fs, path)) await rm(path, { recursive: true, force: true });
    else await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

export async function lockPath(scope: string): Promise<string> {
  const { folder, join } = await fileSystem();
  return join(folder, createHash("sha256").update(scope).digest("hex"));
}

function abortion(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
}

/** Runs `work` while holding the lock named by `scope` (the Blobs server, store and key), on
 * this machine, across threads and processes. Waiting stops when `signal` aborts, and so does
 * holding: a write that hangs past its caller's deadline must not keep every later write to the
 * key waiting (on production Blobs, too, a request given up on blocks nobody). */
export async function withLocalWriteLock<T>(scope: string, signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  const fs = await fileSystem();
  const path = await lockPath(scope);
  await acquire(fs, path, signal);
  try {
    return await Promise.race([work(), abortion(signal)]);
  } finally {
    // The lock is an empty folder: one rmdir (a recursive rm would walk it first).
    await fs.rmdir(path).catch((error: unknown) => {
      if (!isCode(error, "ENOENT")) throw error;
    });
  }
}
