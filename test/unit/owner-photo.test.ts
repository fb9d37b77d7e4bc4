// The owner's photo is copied into the site at build time, so the pages load nothing from
// another origin; a photo that cannot be fetched leaves the pages without one, and says why.
// It is fetched through the same address guard and limits as every other fetch: this local
// server is reachable in development only (as a photo on localhost is, under netlify dev).
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSite } from "../../scripts/build.ts";
import { testEnv } from "../helpers/env.ts";

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");
const DEV = { CONTEXT: "dev" };
let server: Server;
let base: string;
const asked: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    asked.push(req.url ?? "");
    if (req.url === "/me.png") res.writeHead(200, { "Content-Type": "image/png" }).end(PNG);
    else if (req.url === "/huge.png")
      res.writeHead(200, { "Content-Type": "image/png" }).end(Buffer.alloc(1024 * 1024 + 1));
    else if (req.url === "/page") res.writeHead(200, { "Content-Type": "text/html" }).end("<p>not an image</p>");
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function built(photo: string, env: Record<string, string> = DEV) {
  const dir = await mkdtemp(join(tmpdir(), "photo-"));
  try {
    const result = await buildSite(await testEnv({ PROFILE_PHOTO: photo, ...env }), dir);
    const pages = await Promise.all(
      ["sign-in", "account"].map((p) => readFile(join(dir, "indieauth", p, "index.html"), "utf8")),
    );
    const copy = await readFile(join(dir, "indieauth", "assets", "owner-photo.png")).catch(() => null);
    return { result, pages, copy };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("the owner's photo", () => {
  it("is served from the site itself, byte for byte", async () => {
    const { result, pages, copy } = await built(`${base}/me.png`);
    expect(result.warnings).toEqual([]);
    expect(copy?.equals(PNG)).toBe(true);
    for (const html of pages) {
      expect(html).toContain('<img src="/indieauth/assets/owner-photo.png" alt="">');
      expect(html).not.toContain(base);
    }
  });

  it.each([
    ["missing", "/missing.png", "answered 404"],
    ["not an image", "/page", "not a JPEG"],
    ["larger than 1 MB", "/huge.png", "larger than 1048576 bytes"],
  ])("is left out, with a build warning, when %s", async (_what, path, reason) => {
    const { result, pages, copy } = await built(`${base}${path}`);
    expect(result.warnings).toEqual([expect.stringContaining(reason)]);
    expect(copy).toBeNull();
    for (const html of pages) expect(html).not.toMatch(/<img src=/);
  });

  it("on a loopback or private address is never asked for outside development (a build machine's internal services)", async () => {
    asked.length = 0;
    for (const photo of [
      `${base}/me.png`,
      "http://169.254.169.254/latest/meta-data/photo.png",
      "http://[::1]/me.png",
    ]) {
      const { result, copy } = await built(photo, {});
      expect(result.warnings).toEqual([expect.stringContaining("is not allowed")]);
      expect(copy).toBeNull();
    }
    expect(asked).toEqual([]);
  });
});
