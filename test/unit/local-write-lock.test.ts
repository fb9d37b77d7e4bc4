// The per-key lock that makes the local Blobs server's conditional writes atomic
// (platform/local-write-lock.ts): one holder at a time, a lock left by a dead writer is broken,
// and a caller whose deadline passed stops waiting without writing.
import { randomUUID } from "node:crypto";
import { mkdir, utimes } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { lockPath, withLocalWriteLock } from "../../netlify/lib/platform/local-write-lock.ts";

const never = new AbortController().signal;

describe("the local write lock", () => {
  it("runs one holder at a time: the second starts only after the first is done", async () => {
    const scope = `test-${randomUUID()}`;
    const order: string[] = [];
    let releaseFirst!: () => void;
    const first = withLocalWriteLock(scope, never, async () => {
      order.push("first starts");
      await new Promise<void>((resolve) => (releaseFirst = resolve));
      order.push("first ends");
    });
    await expect.poll(() => order.length).toBe(1);
    const second = withLocalWriteLock(scope, never, async () => void order.push("second runs"));
    // The second waits however long the first holds the lock; released, it runs.
    releaseFirst();
    await Promise.all([first, second]);
    expect(order).toEqual(["first starts", "first ends", "second runs"]);
  });

  it("breaks a lock abandoned by a writer that died holding it", async () => {
    const scope = `test-${randomUUID()}`;
    await mkdir(await lockPath(scope), { recursive: true });
    const longAgo = new Date(Date.now() - 60_000);
    await utimes(await lockPath(scope), longAgo, longAgo);
    expect(await withLocalWriteLock(scope, never, async () => "written")).toBe("written");
  });

  it("stops waiting when the caller's deadline passes, and never runs the write", async () => {
    const scope = `test-${randomUUID()}`;
    await mkdir(await lockPath(scope), { recursive: true });
    const deadline = new AbortController();
    let wrote = false;
    const waiting = withLocalWriteLock(scope, deadline.signal, async () => void (wrote = true));
    deadline.abort();
    await expect(waiting).rejects.toThrow();
    expect(wrote).toBe(false);
  });
});
