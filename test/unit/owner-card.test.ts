// With no PROFILE_NAME or PROFILE_PHOTO, the build reads the representative h-card of ME for the
// name and photo the sign-in and account pages show, and says which it used: added to a blog
// whose home page is ME, from the publish folder the blog's build has just written; elsewhere
// fetched through the address guard (this loopback server is reachable in development only).
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSite } from "../../scripts/build.ts";
import { testEnv } from "../helpers/env.ts";

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");
const CARD = (url: string) =>
  `<!doctype html><title>Jane</title><body><header class="h-card"><img class="u-photo" src="/jane.png" alt=""><a class="p-name u-url" href="${url}">Jane  Doe</a></header><main>posts</main>`;
let server: Server;
let base: string;
const asked: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    asked.push(req.url ?? "");
    if (req.url === "/") res.writeHead(200, { "Content-Type": "text/html" }).end(CARD("/"));
    else if (req.url === "/elsewhere")
      res.writeHead(200, { "Content-Type": "text/html" }).end(CARD("https://someone.else.example/"));
    else if (req.url === "/jane.png") res.writeHead(200, { "Content-Type": "image/png" }).end(PNG);
    else res.writeHead(404).end();
  });
  // ME may carry a port only as localhost (in development).
  await new Promise<void>((resolve) => server.listen(0, "localhost", resolve));
  base = `http://localhost:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

type Built = Awaited<ReturnType<typeof buildSite>> & { signIn: string; photo: Buffer | null };

/** The pages built with `env`; `blog`: added to a blog whose publish folder holds these files. */
async function built(
  env: Record<string, string | undefined>,
  blog?: { origin: string; files: Record<string, string | Buffer> },
): Promise<Built> {
  const dir = await mkdtemp(join(tmpdir(), "card-"));
  try {
    for (const [path, content] of Object.entries(blog?.files ?? {})) {
      await mkdir(join(dir, path, ".."), { recursive: true });
      await writeFile(join(dir, path), content);
    }
    const result = await buildSite(
      await testEnv({ PROFILE_NAME: undefined, PROFILE_PHOTO: undefined, ...env }),
      dir,
      blog ? { standalone: false, siteOrigins: [blog.origin] } : {},
    );
    const signIn = await readFile(join(dir, "indieauth", "sign-in", "index.html"), "utf8");
    const photo = await readFile(join(dir, "indieauth", "assets", "owner-photo.png")).catch(() => null);
    return { ...result, signIn, photo };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("the owner's name and photo from the h-card of ME", () => {
  it("added to a blog whose home page is ME: read from the publish folder, photo included, and said", async () => {
    const origin = "https://jane.example";
    asked.length = 0;
    const result = await built(
      { ME: `${origin}/`, URL: origin },
      { origin, files: { "index.html": CARD("/"), "jane.png": PNG } },
    );
    expect(result.signIn).toContain("Signing in as <strong>Jane Doe</strong>");
    expect(result.signIn).toContain('<img src="/indieauth/assets/owner-photo.png" alt="">');
    expect(result.photo?.equals(PNG)).toBe(true);
    expect(result.notes).toEqual([
      `The sign-in and account pages show the name and photo from the h-card of ${origin}/.`,
    ]);
    expect(result.warnings).toEqual([]);
  });

  it("elsewhere: fetched through the address guard, in development from this machine too", async () => {
    const result = await built({ ME: `${base}/`, CONTEXT: "dev" });
    expect(result.signIn).toContain("Signing in as <strong>Jane Doe</strong>");
    expect(result.photo?.equals(PNG)).toBe(true);
    expect(result.notes[0]).toContain(`the name and photo from the h-card of ${base}/`);
  });

  it("outside development, a page that cannot be read leaves ME's host on the pages, and says why", async () => {
    asked.length = 0;
    const result = await built({ ME: "https://jane.example/" });
    expect(result.signIn).toContain("Signing in as <strong>jane.example</strong>");
    expect(result.notes[0]).toMatch(
      /^The sign-in and account pages show no name \(PROFILE_NAME is not set, and https:\/\/jane\.example\/ could not be read: .+\): jane\.example instead; no photo/,
    );
    expect(asked).toEqual([]);
  });

  it("takes PROFILE_NAME over the h-card's, and only what is missing from it", async () => {
    const result = await built({ ME: `${base}/`, CONTEXT: "dev", PROFILE_NAME: "J. Doe" });
    expect(result.signIn).toContain("Signing in as <strong>J. Doe</strong>");
    expect(result.photo?.equals(PNG)).toBe(true);
    expect(result.notes).toEqual([`The sign-in and account pages show the photo from the h-card of ${base}/.`]);
  });

  it("leaves out an h-card that is not the page owner's (its u-url is another site's)", async () => {
    const result = await built({ ME: `${base}/elsewhere`, CONTEXT: "dev" });
    expect(result.signIn).toContain(`Signing in as <strong>${new URL(base).host}</strong>`);
    expect(result.photo).toBeNull();
    expect(result.notes[0]).toContain("is not its owner's");
  });

  it("reads nothing when both variables are set", async () => {
    asked.length = 0;
    const result = await built({
      ME: `${base}/`,
      CONTEXT: "dev",
      PROFILE_NAME: "Jane",
      PROFILE_PHOTO: `${base}/jane.png`,
    });
    expect(result.notes).toEqual([]);
    expect(asked).toEqual(["/jane.png"]);
  });
});
