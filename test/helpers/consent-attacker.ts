// The consent-hijacking attacker of test/browser/consent-hijack.test.ts: a page of its own
// (served by a local HTTP server) with a button where Approve will appear, whose first press
// (mousedown or Enter) sends the tab to the sign-in link; and the page-time tools its tests
// use (Playwright's virtual clock, fixed click rhythms). No vitest here.
import { createServer, type Server } from "node:http";
import type { Page } from "playwright-core";

export interface AttackerSite {
  origin: string;
  close(): Promise<void>;
}

/** Where Approve appears: the attacker can measure it too (it is the same static page). */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

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

export async function startAttackerSite(): Promise<AttackerSite> {
  const site: Server = createServer((req, res) => {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(attackerPage(new URL(req.url ?? "/", "http://attacker.invalid")));
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  const address = site.address();
  if (typeof address !== "object" || !address) throw new Error("no address");
  return {
    origin: `http://127.0.0.1:${address.port}`,
    close: () => new Promise((resolve) => site.close(() => resolve())),
  };
}

/** The attacker's page with its decoy over `box`, sending the tab to `link`. */
export function attackerPageUrl(attacker: AttackerSite, link: string, box: Box): string {
  const query = new URLSearchParams({
    link,
    ...Object.fromEntries(Object.entries(box).map(([k, v]) => [k, String(Math.round(v))])),
  });
  return `${attacker.origin}/?${query}`;
}

/** From here on the page's clock (Date, timers, performance.now) stands still, across
 * navigations, until the test moves it (page.clock.runFor). */
export async function stopThePagesClock(page: Page): Promise<void> {
  await page.clock.install();
  await page.clock.pauseAt(Date.now() + 60_000);
}

/** `count` gaps between 80 and 250 ms, the same at every run (a fixed-seed generator). */
export function clickGaps(count: number, seed: number): number[] {
  let state = seed;
  return Array.from({ length: count }, () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return 80 + (state % 171);
  });
}
