// Attack catalogue, browser half: hijacking the owner's consent with a click or a key press
// meant for another page. The owner is signed in ("Keep me signed in") and approved the app
// before, so a session alone may approve it again: only the sign-in page's own guard stands
// between a stray click and a code (site/scripts/approve-gate.ts). An attacker's page, served
// from a local HTTP server of its own, sends the tab to the sign-in link on the first press of
// a double-click or of a held Enter key; the rest of the gesture lands on the sign-in page.
// Real Chromium, real functions under `netlify dev`.
import { createServer, type Server } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchChromium, readyToApprove } from "../helpers/browser.ts";
import { startClientSite, type ClientSite } from "../helpers/client-site.ts";
import { TEST_PASSWORD } from "../helpers/env.ts";
import { startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";
import { pkcePair } from "../helpers/requests.ts";

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

let server: NetlifyDev;
let client: ClientSite;
let attacker: { origin: string; close(): Promise<void> };
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];

/** The attacker's page: a button where Approve will appear; its first press (mousedown or
 * Enter) sends the tab to the sign-in link. */
function attackerPage(url: URL): string {
  const box = ["x", "y", "width", "height"].map((name) => Number(url.searchParams.get(name)));
  return `<!doctype html><title>Claim your prize</title>
<style>body{margin:0} #decoy{position:absolute;left:${box[0]}px;top:${box[1]}px;width:${box[2]}px;height:${box[3]}px}</style>
<button id="decoy" autofocus>Double-click to claim</button>
<script>
  const link = ${JSON.stringify(url.searchParams.get("link") ?? "")};
  document.getElementById("decoy").addEventListener("mousedown", () => { location.href = link; });
  addEventListener("keydown", (event) => { if (event.key === "Enter") location.href = link; });
</script>`;
}

async function startAttackerSite(): Promise<typeof attacker> {
  const site: Server = createServer((req, res) => {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(attackerPage(new URL(req.url ?? "/", "http://attacker.invalid")));
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  const address = site.address();
  if (typeof address !== "object" || !address) throw new Error("no address");
  return { origin: `http://127.0.0.1:${address.port}`, close: () => new Promise((resolve) => site.close(() => resolve())) };
}

beforeAll(async () => {
  [server, client, attacker, browser] = await Promise.all([startNetlifyDev(), startClientSite(), startAttackerSite(), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await client?.close();
  await attacker?.close();
  await server?.stop();
});
afterEach(async () => {
  await context?.close();
  expect(pageErrors.splice(0)).toEqual([]);
});

/** Anyone can build this link: any PKCE challenge, the app's own redirect URI. */
function signInLink(clientId = `${client.origin}/`): string {
  const params = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: `${clientId}callback`,
    state: "s",
    code_challenge: pkcePair().challenge,
    code_challenge_method: "S256",
    scope: "profile create update",
  });
  return `${server.baseUrl}/auth?${params}`;
}

/** The owner's device: signed in with "Keep me signed in", having approved the app with the
 * password (so a session alone may approve it again). Returns where Approve then appears. */
async function ownerWhoApprovedTheApp(): Promise<Box> {
  context = await browser.newContext({ viewport: { width: 800, height: 900 } });
  page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  await page.goto(signInLink());
  await page.getByLabel("Password", { exact: true }).fill(TEST_PASSWORD);
  await page.getByLabel("Keep me signed in on this device").check();
  await readyToApprove(page);
  await Promise.all([page.waitForURL(`${client.origin}/callback**`), page.locator("#approve").click()]);
  // From here on, every code the app receives came from the attack.
  client.callbacks.length = 0;
  // Where Approve appears on the page that needs no password (the attacker can measure it too).
  await page.goto(signInLink());
  await page.locator("#session-note").waitFor();
  const box = await page.locator("#approve").boundingBox();
  if (!box) throw new Error("Approve has no box");
  return box;
}

function codesAtClient(): number {
  return client.callbacks.filter((url) => url.searchParams.has("code")).length;
}

/** The sign-in page stays, Approve still off: the page settles and says what turns it on. */
async function expectNoApproval(): Promise<void> {
  const outcome = await Promise.race([
    page.waitForURL(`${client.origin}/callback**`, { timeout: 10_000 }).then(() => "sent to the app with a code"),
    page.locator("#approve-hint").waitFor({ timeout: 10_000 }).then(() => "Approve still off"),
  ]).catch(() => "Approve turned on");
  expect(outcome).toBe("Approve still off");
  await expect(page.locator("#approve").isDisabled()).resolves.toBe(true);
  expect(codesAtClient()).toBe(0);
}

async function openAttackerPage(box: Box): Promise<void> {
  const query = new URLSearchParams({ link: signInLink(), ...Object.fromEntries(Object.entries(box).map(([k, v]) => [k, String(Math.round(v))])) });
  await page.goto(`${attacker.origin}/?${query}`);
  await page.locator("#decoy").waitFor();
}

describe("consent hijacking: a gesture that began on another site never approves", () => {
  it.each([80, 120, 200])("a double-click (%i ms between the clicks), the first on the attacker's page, the second where Approve appears", async (gapMs) => {
    const box = await ownerWhoApprovedTheApp();
    await openAttackerPage(box);
    const x = box.x + box.width / 2;
    const y = box.y + box.height / 2;
    await page.mouse.move(x, y);
    // First click: its mousedown sends the tab to the sign-in link.
    await page.mouse.down();
    await page.mouse.up();
    // The second click lands on Approve as soon as it is there (the first click's gap is the
    // page's own load time; the gap measured here is how long after Approve appears: the pause
    // is the person's timing, not a wait for anything).
    await page.locator("#approve").waitFor();
    await page.waitForTimeout(gapMs);
    await page.mouse.down();
    await page.mouse.up();
    await expectNoApproval();
    // The owner, meaning it, still can: the pointer moves, then the click approves.
    await readyToApprove(page);
    await Promise.all([page.waitForURL(`${client.origin}/callback**`), page.locator("#approve").click()]);
    expect(codesAtClient()).toBe(1);
  });

  it("a held Enter key: its repeats never press Approve, which is never focused", async () => {
    const box = await ownerWhoApprovedTheApp();
    await openAttackerPage(box);
    await page.locator("#decoy").focus();
    // Pressed on the attacker's page (which navigates on it), then held: the browser repeats it.
    await page.keyboard.down("Enter");
    await page.locator("#approve").waitFor();
    await expect(page.evaluate(() => document.activeElement?.id ?? "")).resolves.not.toBe("approve");
    // 60 repeats at about a keyboard's rate (the pause is the key's repeat interval, not a wait
    // for anything): at least 1.8 s, well past the moment Approve could turn on (0.6 s).
    for (let repeat = 0; repeat < 60 && page.url().startsWith(server.baseUrl); repeat++) {
      await page.keyboard.down("Enter");
      await page.waitForTimeout(30);
    }
    await page.keyboard.up("Enter");
    await expectNoApproval();
  });

  it("clicked, Approve turns off while the form is on its way: a second click at once sends nothing", async () => {
    await ownerWhoApprovedTheApp();
    const posts: string[] = [];
    page.on("request", (request) => void (request.method() === "POST" && request.url().endsWith("/auth/approve") && posts.push(request.url())));
    await readyToApprove(page);
    const box = (await page.locator("#approve").boundingBox())!;
    // Two clicks on Approve: the second once the first one's post is on its way, before its answer.
    const firstPost = page.waitForRequest((request) => request.method() === "POST" && request.url().endsWith("/auth/approve"));
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await firstPost;
    await page.mouse.click(box.x + box.width / 2 + 2, box.y + box.height / 2);
    await expect.poll(() => codesAtClient(), { timeout: 15_000 }).toBeGreaterThan(0);
    expect(posts).toHaveLength(1);
    expect(codesAtClient()).toBe(1);
  });

  it("the attacker's own app, never approved: even signed in, the page asks for the password", async () => {
    await ownerWhoApprovedTheApp();
    await page.goto(signInLink(`${attacker.origin}/`));
    await page.locator("#confirm-app-note").waitFor();
    await expect(page.getByLabel("Password", { exact: true }).isVisible()).resolves.toBe(true);
    await expect(page.locator("#session-note").isVisible()).resolves.toBe(false);
  });

  it("an unsigned session=1 added to the page's address changes nothing", async () => {
    context = await browser.newContext();
    page = await context.newPage();
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(signInLink());
    await page.locator("#approve").waitFor();
    const tampered = `${page.url()}&session=1`;
    await page.goto("about:blank");
    await page.goto(tampered);
    await page.locator("#approve").waitFor();
    await expect(page.getByLabel("Password", { exact: true }).isVisible()).resolves.toBe(true);
    await expect(page.locator("#session-note").isVisible()).resolves.toBe(false);
  });
});
