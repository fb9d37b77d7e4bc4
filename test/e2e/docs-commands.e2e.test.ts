// The docs' own shell commands, run with curl against one `netlify dev`: README's redemption of
// the sign-in by hand, every curl of docs/endpoints.md (metadata, /auth and /token redemptions,
// refresh, introspection three ways, /auth/approve/check, revocation, userinfo), docs/blog.md's
// headers and docs/account.md's revoke-all. Each command is taken from the doc as written, with
// only the doc's placeholders filled (its host, `ic_...`, `iat_...`, the session cookie), and what
// it prints is held to what the doc shows (the JSON's keys, the `# …` lines). A last test lists
// every shell command of README and docs with where it runs, so that a new one must be placed.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allDocCommands, jsonKeys, type DocCommand } from "../helpers/doc-commands.ts";
import { TEST_PASSWORD } from "../helpers/env.ts";
import { startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";
import { pkcePair } from "../helpers/requests.ts";

const INTROSPECTION_TOKEN = "an-introspection-credential-for-the-docs-test";
const CLIENT_ID = "http://127.0.0.1:3000/";
const REDIRECT_URI = "http://127.0.0.1:3000/callback";

let server: NetlifyDev;
let base: string;
const commands = allDocCommands();

beforeAll(async () => {
  server = await startNetlifyDev({ INTROSPECTION_TOKEN });
  base = server.baseUrl;
});
afterAll(async () => {
  await server?.stop();
});

function find(doc: string, start: string): DocCommand {
  const found = commands.find((c) => c.doc === doc && c.command.startsWith(start));
  if (!found) throw new Error(`${doc} has no command starting "${start}"`);
  return found;
}

/** Runs a command through bash, as a person pastes it, with `vars` in its environment. */
function sh(
  command: string,
  vars: Record<string, string> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", command], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...vars },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** The doc's command for this server: its hosts made this server's, the example client made the
 * loopback client this test signs in with, and each `name` replaced by its value. */
function fill(command: string, values: Record<string, string> = {}): string {
  let filled = command
    .replaceAll("https://auth.jane.example", base)
    .replaceAll("http://localhost:8888", base)
    .replaceAll("https://app.example/callback", REDIRECT_URI)
    .replaceAll("https://app.example/", CLIENT_ID);
  for (const [placeholder, value] of Object.entries(values)) filled = filled.replaceAll(placeholder, value);
  return filled;
}

async function json(
  command: string,
  values: Record<string, string> = {},
  vars: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const result = await sh(fill(command, values), vars);
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

const sorted = (keys: string[]) => [...new Set(keys)].sort();

/** GET /auth for `url`, then the sign-in page's approval with the password: the code. */
async function approve(url: string): Promise<string> {
  const start = await fetch(url, { redirect: "manual" });
  expect(start.status).toBe(303);
  const request = new URLSearchParams(start.headers.get("location")!.split("#")[1]).get("request")!;
  const body = new URLSearchParams({ request, decision: "approve", password: TEST_PASSWORD });
  for (const scope of (new URL(url).searchParams.get("scope") ?? "").split(" ")) body.append("scope", scope);
  const approved = await fetch(`${base}/auth/approve`, {
    method: "POST",
    body,
    redirect: "manual",
    headers: { Origin: base, "Sec-Fetch-Site": "same-origin" },
  });
  expect(approved.status).toBe(302);
  return new URL(approved.headers.get("location")!).searchParams.get("code")!;
}

/** A fresh code for the loopback client, and its verifier. */
async function freshCode(scope = "profile create"): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = pkcePair();
  const params = new URLSearchParams({
    response_type: "code",
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    state: "docs",
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope,
  });
  return { code: await approve(`${base}/auth?${params}`), verifier };
}

/** The sign-in request (the signed `request` the sign-in page gets) of a fresh GET /auth. */
async function signInRequest(): Promise<string> {
  const { challenge } = pkcePair();
  const params = new URLSearchParams({
    response_type: "code",
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    state: "docs",
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope: "profile",
  });
  const start = await fetch(`${base}/auth?${params}`, { redirect: "manual" });
  return new URLSearchParams(start.headers.get("location")!.split("#")[1]).get("request")!;
}

let accessToken: string;
let refreshToken: string;

describe("the docs' commands, run with curl against netlify dev", () => {
  it("README: the sign-in by hand's authorization request and curl redeem at /token, printing what the README shows", async () => {
    const readme = find("README.md", "curl -s http://localhost:8888/token");
    const text = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const authorization = /^http:\/\/localhost:8888\/auth\?\S+$/m.exec(text)![0];
    const code = await approve(fill(authorization));
    const tokens = await json(readme.command, { PASTE_THE_CODE: code });
    expect(sorted(Object.keys(tokens))).toEqual(sorted(jsonKeys(readme.printed[0]!)));
    expect(tokens).toMatchObject({ token_type: "Bearer", scope: "profile create", me: "https://jane.example/" });
  });

  it("endpoints.md: the metadata document, key for key as the doc prints it", async () => {
    const metadata = find(
      "docs/endpoints.md",
      "curl -s https://auth.jane.example/.well-known/oauth-authorization-server",
    );
    const documented = JSON.parse(fill(metadata.json!)) as Record<string, unknown>;
    const served = await json(metadata.command);
    expect(sorted(Object.keys(served))).toEqual(sorted(Object.keys(documented)));
    for (const key of [
      "issuer",
      "authorization_endpoint",
      "token_endpoint",
      "introspection_endpoint",
      "revocation_endpoint",
      "userinfo_endpoint",
      "scopes_supported",
      "code_challenge_methods_supported",
      "grant_types_supported",
    ]) {
      expect(served[key], key).toEqual(documented[key]);
    }
  });

  it("endpoints.md: POST /register answers the client_id, which serves the same registration as a metadata document", async () => {
    const register = find("docs/endpoints.md", "curl -s https://auth.jane.example/register");
    const registered = await json(register.command);
    expect(sorted(Object.keys(registered))).toEqual(sorted(jsonKeys(register.json!)));
    const documented = JSON.parse(register.json!) as Record<string, unknown>;
    for (const key of ["client_name", "redirect_uris", "grant_types", "response_types", "token_endpoint_auth_method"])
      expect(registered[key], key).toEqual(documented[key]);
    expect(registered.client_id).toMatch(new RegExp(`^${base}/register/[\\w-]+\\.[\\w-]{22}$`));
    const read = find("docs/endpoints.md", 'curl -s "$CLIENT_ID"');
    const served = await json(read.command, {}, { CLIENT_ID: registered.client_id as string });
    expect(sorted(Object.keys(served))).toEqual(sorted(jsonKeys(read.json!)));
    expect(served.client_id).toBe(registered.client_id);
  });

  it("endpoints.md: POST /auth redeems a code for the profile URL, POST /token for tokens", async () => {
    const atAuth = find("docs/endpoints.md", "curl -s https://auth.jane.example/auth -H 'Accept: application/json'");
    const first = await freshCode();
    const profile = await json(atAuth.command, {
      "ic_...": first.code,
      "code_verifier=...": `code_verifier=${first.verifier}`,
    });
    expect(sorted(jsonKeys(JSON.stringify(profile)))).toEqual(sorted(jsonKeys(atAuth.json!)));
    expect(profile.me).toBe("https://jane.example/");

    const atToken = find("docs/endpoints.md", "curl -s https://auth.jane.example/token -H 'Accept: application/json'");
    const second = await freshCode();
    const tokens = await json(atToken.command, {
      "ic_...": second.code,
      "code_verifier=...": `code_verifier=${second.verifier}`,
    });
    expect(sorted(jsonKeys(JSON.stringify(tokens)))).toEqual(sorted(jsonKeys(atToken.json!)));
    expect(tokens).toMatchObject({ token_type: "Bearer", scope: "profile create", me: "https://jane.example/" });

    const refresh = find("docs/endpoints.md", "curl -s https://auth.jane.example/token -d grant_type=refresh_token");
    const refreshed = await json(refresh.command, { "irt_...": tokens.refresh_token as string });
    expect(refreshed).toMatchObject({ token_type: "Bearer", scope: "create" });
    accessToken = (await freshTokens()).access_token;
    refreshToken = refreshed.refresh_token as string;
    expect(refreshToken).toMatch(/^irt_/);
  });

  it("endpoints.md: introspection with the token itself, the legacy GET /token and INTROSPECTION_TOKEN all answer as the doc shows", async () => {
    for (const start of [
      'curl -s -X POST https://auth.jane.example/introspect -H "Authorization: Bearer iat_..."',
      'curl -s https://auth.jane.example/token -H "Authorization: Bearer iat_..."',
      'curl -s https://auth.jane.example/introspect -H "Authorization: Bearer $INTROSPECTION_TOKEN"',
    ]) {
      const command = find("docs/endpoints.md", start);
      const answer = await json(command.command, { "iat_...": accessToken }, { INTROSPECTION_TOKEN });
      expect(sorted(Object.keys(answer)), start).toEqual(sorted(jsonKeys(command.json!)));
      expect(answer).toMatchObject({
        active: true,
        me: "https://jane.example/",
        client_id: CLIENT_ID,
        scope: "profile create",
      });
    }
  });

  it("endpoints.md: GET /userinfo answers the profile", async () => {
    const command = find("docs/endpoints.md", "curl -s https://auth.jane.example/userinfo");
    const answer = await json(command.command, { "iat_...": accessToken });
    expect(sorted(Object.keys(answer))).toEqual(sorted(jsonKeys(command.json!)));
    expect(answer.sub).toBe("https://jane.example/");
  });

  it("endpoints.md: /auth/approve/check says fresh, altered, incomplete, and refuses another site, as the doc prints", async () => {
    const request = await signInRequest();
    const [header, payload, signature] = request.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, unknown>;
    const changed = [
      header,
      Buffer.from(JSON.stringify({ ...claims, scope: "profile create" })).toString("base64url"),
      signature,
    ].join(".");
    const vars = { REQUEST: request, CHANGED: changed };
    const check = find("docs/endpoints.md", "CHECK=");
    for (const [start, expected] of [
      ["curl -s $CHECK -H 'Sec-Fetch-Site: same-origin' --data-urlencode \"request=$REQUEST\"", { usable: true }],
      [
        "curl -s $CHECK -H 'Sec-Fetch-Site: same-origin' --data-urlencode \"request=$CHANGED\"",
        { usable: false, problem: "altered" },
      ],
      [
        "curl -s $CHECK -H 'Sec-Fetch-Site: same-origin' --data-urlencode \"request=${REQUEST:0:100}\"",
        { usable: false, problem: "incomplete" },
      ],
      ["curl -s $CHECK -H 'Sec-Fetch-Site: cross-site'", { error: "access_denied" }],
    ] as const) {
      const command = find("docs/endpoints.md", start);
      const answer = await json(`${fill(check.command)}\n${command.command}`, {}, vars);
      expect(answer, start).toMatchObject(expected);
      expect(sorted(Object.keys(answer)), start).toEqual(sorted(jsonKeys(command.printed[0]!)));
    }
  });

  it("blog.md: curl -sI on the sign-in page shows the headers the doc lists", async () => {
    const command = find("docs/blog.md", "curl -sI http://localhost:8888/indieauth/sign-in/");
    const result = await sh(fill(command.command));
    expect(result.status, result.stderr).toBe(0);
    const headers = new Map(
      result.stdout
        .split(/\r?\n/)
        .map((line) => [line.split(":", 1)[0]!.toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
    );
    for (const line of command.printed) {
      const [name, value] = [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trim()];
      const served = headers.get(name.toLowerCase());
      expect(served, name).toBeDefined();
      // The doc elides the middle of a long value with "...": each part shows, in order.
      let from = 0;
      for (const part of value.split(" ... ")) {
        const at = served!.indexOf(part, from);
        expect(at, `${name}: ${part}`).toBeGreaterThanOrEqual(0);
        from = at + part.length;
      }
    }
  });

  it("endpoints.md: POST /revoke ends the token; account.md: revoking every app with a session cookie", async () => {
    const revoke = find("docs/endpoints.md", "curl -s -X POST https://auth.jane.example/revoke");
    const revoked = await sh(fill(revoke.command, { "iat_...": accessToken }));
    expect(revoked.status, revoked.stderr).toBe(0);
    const after = await fetch(`${base}/introspect`, {
      method: "POST",
      headers: { Authorization: `Bearer ${accessToken}` },
    });
    expect(await after.json()).toEqual({ active: false });

    const signIn = await fetch(`${base}/indieauth/api/account/sign-in`, {
      method: "POST",
      headers: { Origin: base, "Content-Type": "application/json" },
      body: JSON.stringify({ password: TEST_PASSWORD, remember: "false" }),
    });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers.get("set-cookie")!.split(";", 1)[0]!;
    const command = find("docs/account.md", "curl -s https://auth.jane.example/indieauth/api/account/revoke");
    // Locally (http://localhost) the cookie is indieauth_session, without the __Secure- prefix.
    const answer = await json(command.command.replace(/__Secure-indieauth_session=\S+?'/, `${cookie}'`));
    expect(sorted(Object.keys(answer))).toEqual(sorted(jsonKeys(command.printed[0]!)));
    expect(answer.ok).toBe(true);
    expect(answer.revoked).toBeGreaterThanOrEqual(1);
    const refreshed = await fetch(`${base}/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: CLIENT_ID }),
    });
    expect(refreshed.status).toBe(400);
  });
});

async function freshTokens(): Promise<{ access_token: string }> {
  const { code, verifier } = await freshCode();
  const response = await fetch(`${base}/token`, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
    }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { access_token: string };
}

/** Where each shell command of README and docs/ runs; a command not listed fails the last test. */
const ELSEWHERE: [doc: string, start: string, where: string][] = [
  ["README.md", "npm install && npm start", "npm install: .ci/run (npm ci); npm start: test/e2e/npm-start.e2e.test.ts"],
  ["README.md", "npm test ", ".ci/run"],
  ["README.md", "npm run test:", ".ci/run"],
  ["README.md", "npm run lint", ".ci/run"],
  [
    "README.md",
    "npm install",
    ".ci/run (npm ci); in a blog: test/helpers/blog.ts installBlog (the tarball; netlify-cli linked, not installed)",
  ],
  ["README.md", "npm start", "test/e2e/npm-start.e2e.test.ts"],
  [
    "README.md",
    "npx netlify-indieauth hash-password",
    "test/e2e/local-trial.e2e.test.ts (the README's block), test/e2e/hugo-blog.e2e.test.ts",
  ],
  ["README.md", "ME=", "test/e2e/local-trial.e2e.test.ts writes the README's .env block"],
  ["README.md", "SECRET=", "test/e2e/local-trial.e2e.test.ts (openssl rand -base64 32)"],
  ["README.md", "PASSWORD_HASH=", "test/e2e/local-trial.e2e.test.ts"],
  [
    "README.md",
    "npx netlify-indieauth dev",
    "test/e2e/local-trial.e2e.test.ts (the README's block), test/e2e/blog-cli.e2e.test.ts",
  ],
  [
    "docs/endpoints.md",
    "curl -s $CHECK -H 'Sec-Fetch-Site: same-origin' --data-urlencode \"request=$EXPIRED\"",
    "not run here (a request 15 minutes old): test/integration/request-check.test.ts, with an injected clock",
  ],
  [
    "docs/resource-api.md",
    "curl ",
    "the same requests by fetch in test/e2e/resource-blog.e2e.test.ts, against the doc's own functions in a blog",
  ],
  ["docs/tests.md", "npm test", ".ci/run"],
  ["docs/tests.md", "npm run test:", ".ci/run"],
  ["docs/tests.md", "npm run lint", ".ci/run"],
  ["docs/tests.md", "bash .ci/run", "CI itself"],
];

/** The commands the tests above run (by the start the tests find them with). */
const RUN_HERE: [doc: string, start: string][] = [
  ["README.md", "curl -s http://localhost:8888/token"],
  ["docs/account.md", "curl -s https://auth.jane.example/indieauth/api/account/revoke"],
  ["docs/blog.md", "curl -sI http://localhost:8888/indieauth/sign-in/"],
  ["docs/endpoints.md", "curl -s https://auth.jane.example/"],
  ["docs/endpoints.md", "curl -s -X POST https://auth.jane.example/"],
  ["docs/endpoints.md", "CHECK="],
  ["docs/endpoints.md", 'curl -s "$CLIENT_ID"'],
  ["docs/endpoints.md", "curl -s $CHECK -H 'Sec-Fetch-Site: same-origin' --data-urlencode \"request=$REQUEST\""],
  ["docs/endpoints.md", "curl -s $CHECK -H 'Sec-Fetch-Site: same-origin' --data-urlencode \"request=$CHANGED\""],
  [
    "docs/endpoints.md",
    "curl -s $CHECK -H 'Sec-Fetch-Site: same-origin' --data-urlencode \"request=${REQUEST:0:100}\"",
  ],
  ["docs/endpoints.md", "curl -s $CHECK -H 'Sec-Fetch-Site: cross-site'"],
];

/** The code blocks of `lang` in README, with the list indentation taken off. */
function readmeBlocks(lang: string): string[] {
  const text = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  return [...text.matchAll(new RegExp(`^( *)\`\`\`${lang}\n([\\s\\S]*?)^ *\`\`\`$`, "gm"))].map(([, indent, code]) =>
    code!
      .split("\n")
      .map((line) => (line.startsWith(indent!) ? line.slice(indent!.length) : line))
      .join("\n")
      .trim(),
  );
}

describe("README's blocks that are copied, not run", () => {
  it("the three tags to paste are the ones the server's home page gives for its address", async () => {
    const [tags] = readmeBlocks("html");
    const home = await (await fetch(`${base}/`)).text();
    const shown = home
      .replaceAll("&lt;", "<")
      .replaceAll("&gt;", ">")
      .replaceAll("&quot;", '"')
      .replaceAll("&#34;", '"')
      .replaceAll("&amp;", "&");
    for (const tag of fill(tags!).split("\n")) expect(shown, tag).toContain(tag.trim());
  });

  it("the plugin's netlify.toml block is what the fixture blogs the e2e suite builds say", () => {
    const plugin = readmeBlocks("toml").find((block) => !block.includes("[build]"))!;
    for (const fixture of ["blog", "eleventy-blog"]) {
      expect(readFileSync(new URL(`../fixtures/${fixture}/netlify.toml`, import.meta.url), "utf8"), fixture).toContain(
        plugin,
      );
    }
  });
});

describe("every shell command of README and docs/", () => {
  it("is run by this file or named with the test that runs it (ELSEWHERE)", () => {
    const unplaced = commands.filter(
      (c) =>
        !RUN_HERE.some(([doc, start]) => c.doc === doc && c.command.startsWith(start)) &&
        !ELSEWHERE.some(([doc, start]) => c.doc === doc && c.command.startsWith(start)),
    );
    expect(unplaced.map((c) => `${c.doc}: ${c.command}`)).toEqual([]);
  });
});
