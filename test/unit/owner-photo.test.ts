// The owner's photo is copied into the site at build time, so the pages load nothing from
// another origin; a photo that cannot be fetched leaves the pages without one, and says why.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSite } from "../../scripts/build.ts";
import { testEnv } from "../helpers/env.ts";

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/me.png") res.writeHead(200, { "Content-Type": "image/png" }).end(PNG);
    else if (req.url === "/page") res.writeHead(200, { "Content-Type": "text/html" }).end("<p>not an image</p>");
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function built(photo: string) {
  const dir = await mkdtemp(join(tmpdir(), "photo-"));
  try {
    const result = await buildSite(await testEnv({ PROFILE_PHOTO: photo }), dir);
    const pages = await Promise.all(["sign-in", "account"].map((p) => readFile(join(dir, "indieauth", p, "index.html"), "utf8")));
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
    ["missing", "/missing.png", "HTTP 404"],
    ["not an image", "/page", "not a JPEG"],
  ])("is left out, with a build warning, when %s", async (_what, path, reason) => {
    const { result, pages, copy } = await built(`${base}${path}`);
    expect(result.warnings).toEqual([expect.stringContaining(reason)]);
    expect(copy).toBeNull();
    for (const html of pages) expect(html).not.toMatch(/<img src=/);
  });
});
