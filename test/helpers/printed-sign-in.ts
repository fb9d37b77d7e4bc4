// Follows the sign-in by hand that a local server prints when it is ready (`npm start`,
// `npx netlify-indieauth dev`), as a person would: opens the printed URL, approves with the
// password on the sign-in page's form endpoint, and runs the printed curl command, with the code
// pasted in, through a shell.
import { spawnSync } from "node:child_process";
import { expect } from "vitest";

export interface PrintedSignIn {
  /** The authorization request the output printed. */
  url: string;
  /** What the printed curl command answered, parsed. */
  redeemed: { access_token?: string; me?: string; scope?: string; error?: string };
}

/** The printed URL and curl command for the server at `base`, taken from its output. */
export function printedInstructions(output: string, base: string): { url: string; curl: string } {
  const url = new RegExp(`^\\s*(${base.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/auth\\?\\S+)$`, "m").exec(output)?.[1];
  const curl = /^\s*(curl -s \S+\/token [^\n]*\\\n[^\n]*\\\n[^\n]*)$/m.exec(output)?.[1];
  if (!url || !curl) throw new Error(`no sign-in URL or curl command for ${base} in the output:\n${output}`);
  return { url, curl };
}

export async function followPrintedSignIn(output: string, base: string, password: string): Promise<PrintedSignIn> {
  const { url, curl } = printedInstructions(output, base);
  const start = await fetch(url, { redirect: "manual" });
  expect(start.status).toBe(303);
  const page = new URL(start.headers.get("location")!, base);
  expect(page.pathname).toBe("/indieauth/sign-in/");
  const request = new URLSearchParams(page.hash.slice(1)).get("request")!;
  const approved = await fetch(`${base}/auth/approve`, {
    method: "POST",
    // The page's checkboxes: one `scope` field per scope approved.
    body: new URLSearchParams([
      ["request", request],
      ["decision", "approve"],
      ["password", password],
      ["scope", "profile"],
      ["scope", "create"],
    ]),
    headers: { Origin: base, "Sec-Fetch-Site": "same-origin" },
    redirect: "manual",
  });
  // On a failure, the page the person would have seen says why.
  expect(
    approved.status,
    approved.status === 302 ? "" : (await approved.text()).replace(/\s+/g, " ").slice(0, 1500),
  ).toBe(302);
  const code = new URL(approved.headers.get("location")!).searchParams.get("code")!;
  const ran = spawnSync("bash", ["-c", curl.replace("PASTE_THE_CODE", code)], { encoding: "utf8", timeout: 60_000 });
  expect(ran.status, ran.stderr).toBe(0);
  return { url, redeemed: JSON.parse(ran.stdout) as PrintedSignIn["redeemed"] };
}
