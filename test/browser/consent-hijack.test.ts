// Attack catalogue, browser half: hijacking the owner's consent with a click or a key press
// meant for another page. The owner is signed in ("Keep me signed in") and approved the app
// before, so a session alone may approve it again: only the sign-in page's own guard stands
// between a stray click and a code (site/scripts/approve-gate.ts). An attacker's page, served
// from a local HTTP server of its own, sends the tab to the sign-in link on the first press of
// a double-click or of a held Enter key; the rest of the gesture lands on the sign-in page, or
// a "click as fast as you can" game keeps clicking at the spot where Approve appears.
// Real Chromium, real `netlify dev`. The pages' time is Playwright's virtual clock, moved only
// by the test (page.clock): the gaps between clicks and key repeats are the page's own time,
// so a busy machine (where 80 ms of real time can become 600) changes nothing asserted.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { APPROVE_ON, launchChromium, readyToApprove } from "../helpers/browser.ts";
import { startClientSite, type ClientSite } from "../helpers/client-site.ts";
import {
  attackerPageUrl,
  clickGaps,
  startAttackerSite,
  stopThePagesClock,
  type AttackerSite,
  type Box,
} from "../helpers/consent-attacker.ts";
import { TEST_PASSWORD } from "../helpers/env.ts";
import { startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";
import { pkcePair } from "../helpers/requests.ts";

let server: NetlifyDev;
let client: ClientSite;
let attacker: AttackerSite;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  [server, client, attacker, browser] = await Promise.all([
    startNetlifyDev(),
    startClientSite(),
    startAttackerSite(),
    launchChromium(),
  ]);
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
async function ownerWhoApprovedTheApp(device: { hasTouch?: boolean } = {}): Promise<Box> {
  context = await browser.newContext({ viewport: { width: 800, height: 900 }, ...device });
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

/** Every form post to the approve step the page makes from here on. */
function approvePosts(): string[] {
  const posts: string[] = [];
  page.on(
    "request",
    (request) =>
      void (
        request.method() === "POST" &&
        new URL(request.url()).pathname === "/auth/approve" &&
        posts.push(request.url())
      ),
  );
  return posts;
}

/** Two seconds later in the page's time (well past the 0.6 s after which anything could turn
 * Approve on), the page stays, Approve still off and explained, nothing sent. */
async function expectNoApproval(posts: readonly string[]): Promise<void> {
  await page.clock.runFor(2_000);
  const outcome = await Promise.race([
    page.waitForURL(`${client.origin}/callback**`, { timeout: 10_000 }).then(() => "sent to the app with a code"),
    page
      .locator("#approve-hint")
      .waitFor({ timeout: 10_000 })
      .then(() => "Approve still off"),
  ]).catch(() => "Approve turned on");
  expect(outcome).toBe("Approve still off");
  await expect(page.locator("#approve").isDisabled()).resolves.toBe(true);
  expect(posts).toEqual([]);
  expect(codesAtClient()).toBe(0);
}

/** The owner, meaning it, still can (`reach` turns Approve on): one post, one code. */
async function ownerApproves(posts: readonly string[], reach: () => Promise<void>): Promise<void> {
  await reach();
  await page.locator(APPROVE_ON).waitFor();
  await Promise.all([page.waitForURL(`${client.origin}/callback**`), page.locator("#approve").click()]);
  expect(posts).toHaveLength(1);
  expect(codesAtClient()).toBe(1);
}

async function openAttackerPage(box: Box): Promise<void> {
  await page.goto(attackerPageUrl(attacker, signInLink(), box));
  await page.locator("#decoy").waitFor();
}

/** The first click of the gesture, on the attacker's page at Approve's spot: its press sends
 * the tab to the sign-in link, and the pointer stays where it is. Resolves once Approve is
 * there (no time passes on the page meanwhile). */
async function firstClickOnTheAttackersPage(box: Box): Promise<{ x: number; y: number }> {
  await openAttackerPage(box);
  const spot = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  await page.mouse.move(spot.x, spot.y);
  await page.mouse.down();
  await page.mouse.up();
  await page.locator("#approve").waitFor();
  return spot;
}

describe("consent hijacking: a gesture that began on another site never approves", () => {
  it.each([80, 120, 200])(
    "a double-click (%i ms between the clicks), the first on the attacker's page, the second where Approve appears",
    async (gapMs) => {
      const box = await ownerWhoApprovedTheApp();
      await stopThePagesClock(page);
      const posts = approvePosts();
      await firstClickOnTheAttackersPage(box);
      // The second click, gapMs of the page's time after Approve appeared.
      await page.clock.runFor(gapMs);
      await page.mouse.down();
      await page.mouse.up();
      await expectNoApproval(posts);
      // The owner reaches for it: the pointer moves.
      await ownerApproves(posts, () => readyToApprove(page));
    },
  );

  it.each([
    ["every 80 ms", Array<number>(40).fill(80)],
    ["every 250 ms", Array<number>(20).fill(250)],
    ["80 to 250 ms apart, at random", clickGaps(40, 21)],
  ])("a storm of clicks at Approve's spot, the pointer still (%s), never approves", async (_, gaps) => {
    const box = await ownerWhoApprovedTheApp();
    await stopThePagesClock(page);
    const posts = approvePosts();
    const spot = await firstClickOnTheAttackersPage(box);
    for (const gap of gaps) {
      await page.clock.runFor(gap);
      await page.mouse.down();
      await page.mouse.up();
    }
    await expect(page.evaluate(() => location.pathname)).resolves.toBe("/indieauth/sign-in/");
    await expectNoApproval(posts);
    // The owner, meaning it: a click beside Approve, then one on it.
    await ownerApproves(posts, async () => {
      await page.mouse.click(spot.x, box.y + box.height + 40);
      await page.clock.runFor(1);
    });
  });

  it("a storm of clicks just below Approve, then the page shifts Approve under it (a late image, say): never approves", async () => {
    const box = await ownerWhoApprovedTheApp();
    await stopThePagesClock(page);
    const posts = approvePosts();
    const spot = { x: box.x + box.width / 2, y: box.y + box.height + 6 };
    await page.mouse.move(spot.x, spot.y);
    await page.goto(signInLink());
    await page.locator("#approve").waitFor();
    const gaps = clickGaps(30, 7);
    for (const [index, gap] of gaps.entries()) {
      await page.clock.runFor(gap);
      // Halfway, something above pushes the form down: Approve is now under the pointer.
      if (index === gaps.length / 2) {
        await page.evaluate(
          (shift) => {
            const spacer = document.createElement("div");
            spacer.style.height = `${shift}px`;
            document.getElementById("approve")!.parentElement!.before(spacer);
          },
          6 + box.height / 2,
        );
      }
      await page.mouse.down();
      await page.mouse.up();
    }
    await expect(page.evaluate(() => location.pathname)).resolves.toBe("/indieauth/sign-in/");
    await expectNoApproval(posts);
  });

  it.each([
    ["a mouse: the pointer wobbles onto it and back between presses", false],
    ["a finger: taps 4 px apart", true],
  ])("a storm of presses beside Approve, 4 px onto it every other time (%s): never approves", async (_, touch) => {
    const box = await ownerWhoApprovedTheApp({ hasTouch: touch });
    await stopThePagesClock(page);
    const posts = approvePosts();
    // 2 px below Approve's lower edge, and 2 px above it: 4 px apart, on either side.
    const beside = { x: box.x + box.width / 2, y: box.y + box.height + 2 };
    const onIt = { x: beside.x, y: box.y + box.height - 2 };
    await page.mouse.move(beside.x, beside.y);
    await page.goto(signInLink());
    await page.locator("#approve").waitFor();
    for (const [index, gap] of clickGaps(40, 13).entries()) {
      await page.clock.runFor(gap);
      const spot = index % 2 === 0 ? beside : onIt;
      if (touch) {
        await page.touchscreen.tap(spot.x, spot.y);
        continue;
      }
      await page.mouse.move(spot.x, spot.y);
      await page.mouse.down();
      await page.mouse.up();
    }
    await expect(page.evaluate(() => location.pathname)).resolves.toBe("/indieauth/sign-in/");
    await expectNoApproval(posts);
    // The owner, meaning it: the pointer comes from further away.
    await ownerApproves(posts, async () => {
      await page.mouse.move(beside.x, beside.y + 60);
      await page.mouse.move(beside.x, beside.y + 40);
      await page.clock.runFor(1);
    });
  });

  it("a held Enter key: its repeats never press Approve, which is never focused", async () => {
    const box = await ownerWhoApprovedTheApp();
    await stopThePagesClock(page);
    const posts = approvePosts();
    await openAttackerPage(box);
    await page.locator("#decoy").focus();
    // Pressed on the attacker's page (which navigates on it), then held: the browser repeats it.
    await page.keyboard.down("Enter");
    await page.locator("#approve").waitFor();
    await expect(page.evaluate(() => document.activeElement?.id ?? "")).resolves.not.toBe("approve");
    // 60 repeats at a keyboard's rate, 30 ms of the page's time apart: 1.8 s, well past the
    // moment Approve could turn on (0.6 s).
    for (let repeat = 0; repeat < 60; repeat++) {
      await page.keyboard.down("Enter");
      await page.clock.runFor(30);
    }
    await page.keyboard.up("Enter");
    await expectNoApproval(posts);
  });

  it("clicked, Approve turns off while the form is on its way: a second click at once sends nothing", async () => {
    await ownerWhoApprovedTheApp();
    const posts: string[] = [];
    page.on(
      "request",
      (request) =>
        void (request.method() === "POST" && request.url().endsWith("/auth/approve") && posts.push(request.url())),
    );
    await readyToApprove(page);
    const box = (await page.locator("#approve").boundingBox())!;
    // Two clicks on Approve: the second once the first one's post is on its way, before its answer.
    const firstPost = page.waitForRequest(
      (request) => request.method() === "POST" && request.url().endsWith("/auth/approve"),
    );
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

/** The id of the element that has the focus. */
const focused = () => page.evaluate(() => document.activeElement?.id ?? "");

/** Presses Tab until Approve has the focus (a keyboard user reaching it). */
async function tabToApprove(): Promise<void> {
  for (let step = 0; step < 12 && (await focused()) !== "approve"; step++) await page.keyboard.press("Tab");
  expect(await focused()).toBe("approve");
}

/** A device that has never signed in: the page asks for the password. */
async function signedOutDevice(): Promise<void> {
  context = await browser.newContext({ viewport: { width: 800, height: 900 } });
  page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  client.callbacks.length = 0;
}

describe("consent hijacking by keys: Enter in a field never presses Approve", () => {
  it("Tab, Enter (a session offer): the Tab lands on a scope, Enter there approves nothing", async () => {
    await ownerWhoApprovedTheApp();
    await stopThePagesClock(page);
    const posts = approvePosts();
    await page.goto(signInLink());
    await page.locator("#approve").waitFor();
    // Long after the page has settled, as a "press Tab, then Enter" game would ask.
    await page.clock.runFor(2_000);
    await page.keyboard.press("Tab");
    await expect(page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type)).resolves.toBe(
      "checkbox",
    );
    await page.clock.runFor(150);
    await page.keyboard.press("Enter");
    await expectNoApproval(posts);
  });

  it.each([
    [
      "a password manager's fill (an input event, no key pressed)",
      (password: string) => page.getByLabel("Password", { exact: true }).fill(password),
    ],
    [
      "an extension writing it, with an input event of its own",
      (password: string) =>
        page.evaluate((value) => {
          const field = document.getElementById("password") as HTMLInputElement;
          field.value = value;
          field.dispatchEvent(new InputEvent("input", { inputType: "insertText", data: value, bubbles: true }));
        }, password),
    ],
  ])(
    "Enter, Enter with the right password in the field from %s: approves nothing; typed by the owner, it signs in",
    async (_, fillIn) => {
      await signedOutDevice();
      await stopThePagesClock(page);
      const posts = approvePosts();
      await page.goto(signInLink());
      await page.locator("#approve").waitFor();
      await fillIn(TEST_PASSWORD);
      await page.clock.runFor(1_000);
      await page.keyboard.press("Enter");
      await page.clock.runFor(150);
      await page.keyboard.press("Enter");
      // A key typed and taken back leaves the filled password: still not typed.
      await page.keyboard.type("x");
      await page.keyboard.press("Backspace");
      await page.keyboard.press("Enter");
      await expectNoApproval(posts);
      await expect(page.locator("#password").inputValue()).resolves.toBe(TEST_PASSWORD);
      // The page says why Enter did nothing, and what to press.
      await page.locator("#enter-hint").waitFor({ state: "visible" });
      expect(await page.locator("#enter-hint").textContent()).toContain("press Approve");

      // The owner types it over, key by key, and presses Enter: the usual way to sign in.
      await page.keyboard.press("Control+A");
      await page.keyboard.type(TEST_PASSWORD);
      await page.locator("#enter-hint").waitFor({ state: "hidden" });
      await Promise.all([page.waitForURL(`${client.origin}/callback**`), page.keyboard.press("Enter")]);
      expect(posts).toHaveLength(1);
      expect(codesAtClient()).toBe(1);
    },
  );

  it("keyboard alone with a session offer: Tab to Approve, Enter turns it on and approves nothing, the next Enter approves", async () => {
    await ownerWhoApprovedTheApp();
    await stopThePagesClock(page);
    const posts = approvePosts();
    await page.goto(signInLink());
    await page.locator("#approve").waitFor();
    await page.clock.runFor(1_000);
    await tabToApprove();
    await page.keyboard.press("Enter");
    await page.clock.runFor(1);
    await page.locator(APPROVE_ON).waitFor();
    expect(posts).toEqual([]);
    await Promise.all([page.waitForURL(`${client.origin}/callback**`), page.keyboard.press("Enter")]);
    expect(posts).toHaveLength(1);
    expect(codesAtClient()).toBe(1);
  });

  it("Tab to Approve, then a held Enter: its repeats press nothing", async () => {
    await ownerWhoApprovedTheApp();
    await stopThePagesClock(page);
    const posts = approvePosts();
    await page.goto(signInLink());
    await page.locator("#approve").waitFor();
    await page.clock.runFor(1_000);
    await tabToApprove();
    await page.keyboard.down("Enter");
    for (let repeat = 0; repeat < 40; repeat++) {
      await page.clock.runFor(30);
      await page.keyboard.down("Enter");
    }
    await page.keyboard.up("Enter");
    await page.clock.runFor(2_000);
    expect(posts).toEqual([]);
    expect(codesAtClient()).toBe(0);
  });

  it("Approve focused by a storm of clicks on it (not by Tab): keys on it turn nothing on", async () => {
    const box = await ownerWhoApprovedTheApp();
    await stopThePagesClock(page);
    const posts = approvePosts();
    const spot = await firstClickOnTheAttackersPage(box);
    for (const gap of clickGaps(12, 5)) {
      await page.clock.runFor(gap);
      await page.mouse.down();
      await page.mouse.up();
    }
    expect({ focused: await focused(), at: spot }).toEqual({ focused: "approve", at: spot });
    for (const key of ["Enter", "Space", "Enter", "Enter"]) {
      await page.clock.runFor(150);
      await page.keyboard.press(key);
    }
    await expectNoApproval(posts);
  });
});

describe('consent hijacking: "Approve with a passkey" sits behind the same gate', () => {
  /** The owner's device holds a passkey (Chromium's virtual authenticator, which answers at once,
   * with no touch or PIN: the worst case), added from the console, which signs it in. Returns
   * where "Approve with a passkey" appears for an app never approved. */
  async function ownerWithPasskey(appId: string): Promise<Box> {
    await signedOutDevice();
    const cdp = await context.newCDPSession(page);
    await cdp.send("WebAuthn.enable", { enableUI: false });
    await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: {
        protocol: "ctap2",
        transport: "internal",
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    await page.goto(`${server.baseUrl}/indieauth/account/`);
    await page.getByLabel("Password", { exact: true }).fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByLabel("Name").fill(`Laptop for ${appId}`);
    await page.getByLabel("Your password, to confirm it is you").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await page.locator("#passkey-list > li[data-passkey-id]", { hasText: `Laptop for ${appId}` }).waitFor();
    await page.goto(signInLink(appId));
    await page.locator("#passkey-button").waitFor();
    const box = await page.locator("#passkey-button").boundingBox();
    if (!box) throw new Error("no passkey button");
    return box;
  }

  /** Every passkey ceremony the page starts, and every code the app receives. */
  function ceremoniesAndCodes(appId: string): { ceremonies: string[]; codes: string[] } {
    const seen = { ceremonies: [] as string[], codes: [] as string[] };
    page.on("request", (request) => {
      const url = request.url();
      if (url.endsWith("/indieauth/api/passkeys/authentication-options")) seen.ceremonies.push(url);
      if (url.startsWith(`${appId}callback`) && new URL(url).searchParams.has("code")) seen.codes.push(url);
    });
    return seen;
  }

  it.each([
    ["a double-click, the first on the attacker's page", "double-click", clickGaps(1, 3)],
    ["a storm of clicks at its spot", "storm", clickGaps(30, 11)],
  ])("%s: no ceremony starts, nothing is approved; meant, it approves", async (_, name, gaps) => {
    // An app the owner never approved: the page asks for the password or a passkey.
    const appId = `${attacker.origin}/${name}/`;
    const box = await ownerWithPasskey(appId);
    await stopThePagesClock(page);
    const seen = ceremoniesAndCodes(appId);
    const posts = approvePosts();
    await page.goto(attackerPageUrl(attacker, signInLink(appId), box));
    await page.locator("#decoy").waitFor();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.up();
    await page.locator("#passkey-button").waitFor();
    for (const gap of gaps) {
      await page.clock.runFor(gap);
      await page.mouse.down();
      await page.mouse.up();
    }
    await page.clock.runFor(2_000);
    await page.locator("#approve-hint").waitFor();
    await expect(page.locator("#passkey-button").getAttribute("aria-disabled")).resolves.toBe("true");
    expect({ ceremonies: seen.ceremonies, codes: seen.codes, posts }).toEqual({ ceremonies: [], codes: [], posts: [] });

    // The owner reaches for it: the pointer moves, and the passkey approves.
    await page.mouse.move(box.x + box.width / 2, box.y + box.height + 60);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height + 40);
    await page.locator('#passkey-button:not([aria-disabled="true"])').waitFor();
    // The ceremony and the post that follows it run in the page's own time from here.
    await page.clock.resume();
    await Promise.all([page.waitForURL(`${appId}callback**`), page.locator("#passkey-button").click()]);
    expect(seen.ceremonies).toHaveLength(1);
    expect(seen.codes).toHaveLength(1);
  });
});
