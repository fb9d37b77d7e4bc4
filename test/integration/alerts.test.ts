// Alerts to the owner's webhook (NOTIFY_URL): each kind reaches a real receiver on loopback
// (allowed because this is local development, NETLIFY_DEV=true) carrying no secret, at most
// one per kind per minute (counted in Blobs), and never holding up the request that caused it.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { approveEndpoint } from "../../netlify/lib/endpoints/approve.ts";
import { accountApi } from "../../netlify/lib/endpoints/account.ts";
import { passkeysApi } from "../../netlify/lib/endpoints/passkey-api.ts";
import { alert } from "../../netlify/lib/owner/alerts.ts";
import { ACCOUNT_API, PASSKEYS_API } from "../../netlify/lib/pages/paths.ts";
import { fastRuntime } from "../helpers/attack-kit.ts";
import { consoleSignIn } from "../helpers/console.ts";
import { signedRequest } from "../helpers/endpoints.ts";
import { TEST_PASSWORD, TEST_SECRET } from "../helpers/env.ts";
import {
  approveRequest,
  authorizationParams,
  CHROME_UA,
  CLIENT_ID,
  CLIENT_IP,
  CONSOLE_IP,
  consolePostRequest,
  redirectParams,
} from "../helpers/requests.ts";
import type { TestRuntime } from "../helpers/runtime.ts";
import { createSoftAuthenticator } from "../helpers/soft-authenticator.ts";
import { startWebhookReceiver, type ReceivedMessage, type WebhookReceiver } from "../helpers/webhook-receiver.ts";
import { ALERT_INTERVAL_MS } from "../../netlify/lib/core/policy.ts";

let receiver: WebhookReceiver;
beforeEach(async () => {
  receiver = await startWebhookReceiver();
});
afterEach(async () => {
  await receiver.close();
});

/** Netlify's context.waitUntil, as the platform offers it: the test awaits what was handed over. */
function platform() {
  const pending: Promise<unknown>[] = [];
  return {
    waitUntil: (work: Promise<unknown>) => void pending.push(work),
    settled: () => Promise.all(pending),
    handedOver: () => pending.length,
  };
}

function alertingRuntime(env: Record<string, string> = {}): Promise<TestRuntime> {
  return fastRuntime({ env: { NETLIFY_DEV: "true", NOTIFY_URL: receiver.url, ...env } });
}

/** A message as JSON (the generic shape: the receiver's host is 127.0.0.1). */
const event = (message: ReceivedMessage) =>
  JSON.parse(message.body) as {
    event: string;
    title: string;
    message: string;
    subject?: string;
    me: string;
    at: string;
  };

/** No secret of any kind in what the receiver got: body, path or headers. */
function expectNoSecret(messages: ReceivedMessage[], secrets: string[]): void {
  const seen = messages.map((m) => `${m.body}\n${JSON.stringify(m.headers)}`).join("\n");
  for (const secret of [TEST_PASSWORD, TEST_SECRET, receiver.secret, CLIENT_IP, CONSOLE_IP, ...secrets])
    expect(seen).not.toContain(secret);
}

async function approveApp(
  rt: TestRuntime,
  background = platform(),
): Promise<{ code: string; request: string; response: Response }> {
  const request = await signedRequest(rt, authorizationParams({ scope: "create" }));
  const response = await approveEndpoint(approveRequest(request, { scopes: ["create"] }), rt, {
    ip: CLIENT_IP,
    userAgent: CHROME_UA,
    waitUntil: background.waitUntil,
  });
  expect(response.status).toBe(302);
  await background.settled();
  return { code: redirectParams(response).get("code")!, request, response };
}

function consoleCall(
  rt: TestRuntime,
  api: string,
  action: string,
  body: Record<string, string>,
  cookie: string,
  background = platform(),
): Promise<Response> {
  const endpoint = api === PASSKEYS_API ? passkeysApi : accountApi;
  return endpoint(consolePostRequest(api, action, body, { cookie }), rt, {
    ip: CONSOLE_IP,
    userAgent: CHROME_UA,
    waitUntil: background.waitUntil,
  }).then(async (response) => {
    await background.settled();
    return response;
  });
}

async function addPasskey(rt: TestRuntime, cookie: string): Promise<{ id: string; ticket: string }> {
  const authenticator = createSoftAuthenticator();
  const started = await consoleCall(rt, PASSKEYS_API, "/registration-options", { password: TEST_PASSWORD }, cookie);
  const { options, ticket } = (await started.json()) as {
    options: Parameters<typeof authenticator.register>[0];
    ticket: string;
  };
  const finished = await consoleCall(
    rt,
    PASSKEYS_API,
    "/registration",
    { ticket, response: JSON.stringify(authenticator.register(options)), name: "Work laptop @everyone" },
    cookie,
  );
  expect(finished.status).toBe(200);
  return { id: ((await finished.json()) as { passkey: { id: string } }).passkey.id, ticket };
}

describe("alerts: each kind reaches the owner's webhook, with no secret in it", () => {
  it("an app approved for the first time; approving it again later says nothing", async () => {
    const rt = await alertingRuntime();
    const first = await approveApp(rt);
    // The password signed in from a browser never seen here: that is told too.
    const kinds = (await receiver.received(2)).map(event);
    expect(kinds.map((k) => k.event).sort()).toEqual(["app-approved", "new-device-sign-in"]);
    const message = receiver.messages.find((m) => event(m).event === "app-approved");
    expect(message!.method).toBe("POST");
    expect(message!.headers["content-type"]).toBe("application/json");
    expect(event(message!)).toMatchObject({
      event: "app-approved",
      title: "New app approved",
      subject: CLIENT_ID,
      me: "https://jane.example/",
    });
    rt.clock.advance(ALERT_INTERVAL_MS + 1000);
    const again = await approveApp(rt);
    expect(receiver.messages.filter((m) => event(m).event === "app-approved")).toHaveLength(1);
    expectNoSecret(receiver.messages, [first.code, first.request, again.code, again.request]);
  });

  it("a passkey added, then removed", async () => {
    const rt = await alertingRuntime();
    const cookie = await consoleSignIn(rt);
    const { id, ticket } = await addPasskey(rt, cookie);
    const removed = await consoleCall(rt, ACCOUNT_API, "/passkeys/delete", { id, password: TEST_PASSWORD }, cookie);
    expect(removed.status).toBe(200);
    // The console's sign-in came from a browser never seen here: its message comes first.
    const messages = (await receiver.received(3)).filter((m) => event(m).event !== "new-device-sign-in");
    expect(messages.map((m) => event(m).event)).toEqual(["passkey-added", "passkey-removed"]);
    // The owner's own words, as text: no mention reaches anyone (the JSON shape carries them as they are).
    expect(event(messages[0]!).subject).toBe("Work laptop @everyone");
    expectNoSecret(messages, [cookie.split("=")[1]!, ticket, id]);
  });

  it("the kinds the sign-in raises (a new device, the overall throttle) and the console's test", async () => {
    const rt = await alertingRuntime();
    const ctx = { rt, config: rt.config.ok ? rt.config.config : ({} as never) };
    await alert(ctx, { type: "new-device-sign-in", device: "Firefox on Linux" });
    await alert(ctx, { type: "throttle-engaged" });
    const cookie = await consoleSignIn(rt);
    const tested = await consoleCall(rt, ACCOUNT_API, "/alerts/test", {}, cookie);
    expect(tested.status).toBe(200);
    expect(await tested.json()).toEqual({ ok: true, on: true, host: new URL(receiver.url).host, format: "json" });
    const messages = await receiver.received(3);
    expect(messages.map((m) => event(m).event)).toEqual(["new-device-sign-in", "throttle-engaged", "test"]);
    expect(event(messages[0]!).subject).toBe("Firefox on Linux");
    expectNoSecret(messages, [cookie.split("=")[1]!]);
  });
});

describe("alerts: raised by the sign-in itself", () => {
  it("the password from a browser never seen here tells the owner which browser; the same browser with its known-device cookie does not", async () => {
    const rt = await alertingRuntime();
    const first = await approveApp(rt);
    const [told] = (await receiver.received(2)).filter((m) => event(m).event === "new-device-sign-in");
    expect(event(told!).subject).toBe("Chrome on Linux");
    const known = (first.response.headers.getSetCookie?.() ?? []).map((c) => c.split(";")[0]!).join("; ");
    expect(known).not.toBe("");
    rt.clock.advance(ALERT_INTERVAL_MS + 1000);
    const request = await signedRequest(rt, authorizationParams({ scope: "create" }));
    const background = platform();
    const again = await approveEndpoint(
      approveRequest(request, { scopes: ["create"], headers: { Cookie: known } }),
      rt,
      { ip: CLIENT_IP, userAgent: CHROME_UA, waitUntil: background.waitUntil },
    );
    expect(again.status).toBe(302);
    await background.settled();
    expect(receiver.messages.filter((m) => event(m).event === "new-device-sign-in")).toHaveLength(1);
  });

  it("wrong passwords past the overall limit (from twenty-four networks) tell the owner", async () => {
    const rt = await alertingRuntime();
    const background = platform();
    for (let i = 0; i < 24; i++) {
      const request = await signedRequest(rt, authorizationParams({ scope: "create" }));
      await approveEndpoint(approveRequest(request, { password: `wrong ${i}` }), rt, {
        ip: `203.0.${i}.9`,
        userAgent: CHROME_UA,
        waitUntil: background.waitUntil,
      });
      rt.clock.advance(61_000);
    }
    await background.settled();
    const engaged = receiver.messages.filter((m) => event(m).event === "throttle-engaged");
    expect(engaged.length).toBeGreaterThanOrEqual(1);
    expectNoSecret(engaged, ["wrong 1"]);
  });
});

describe("alerts: at most one per kind per minute", () => {
  it("a second test within the minute is refused (429) and sends nothing; a minute later it goes", async () => {
    const rt = await alertingRuntime();
    const cookie = await consoleSignIn(rt);
    expect((await consoleCall(rt, ACCOUNT_API, "/alerts/test", {}, cookie)).status).toBe(200);
    rt.clock.advance(ALERT_INTERVAL_MS - 1000);
    const refused = await consoleCall(rt, ACCOUNT_API, "/alerts/test", {}, cookie);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    const tests = () => receiver.messages.filter((m) => event(m).event === "test");
    expect(tests()).toHaveLength(1);
    rt.clock.advance(1000);
    expect((await consoleCall(rt, ACCOUNT_API, "/alerts/test", {}, cookie)).status).toBe(200);
    expect(tests()).toHaveLength(2);
  });

  it("ten of a kind at once, from ten instances: one message; another kind still goes", async () => {
    const rt = await alertingRuntime();
    const config = rt.config.ok ? rt.config.config : ({} as never);
    const background = platform();
    await Promise.all(
      Array.from({ length: 10 }, () => alert({ rt, config, requester: background }, { type: "throttle-engaged" })),
    );
    await alert({ rt, config, requester: background }, { type: "passkey-added", name: "Phone" });
    await background.settled();
    expect(receiver.messages.map((m) => event(m).event).sort()).toEqual(["passkey-added", "throttle-engaged"]);
  });
});

describe("alerts: behind the address guard of client fetches", () => {
  it("a receiver at a private, link-local or loopback address is never contacted outside local development", async () => {
    for (const [url, refusal] of [
      ["https://10.0.0.7/hook", /the address 10\.0\.0\.7 is not allowed/],
      ["https://169.254.169.254/latest", /the address 169\.254\.169\.254 is not allowed/],
      // Loopback in IPv4-mapped IPv6 form (the configuration refuses plain loopback names outright).
      ["https://[::ffff:127.0.0.1]:8443/hook", /the address ::ffff:7f00:1 is not allowed/],
    ] as const) {
      const rt = await fastRuntime({ env: { NOTIFY_URL: url } });
      const cookie = await consoleSignIn(rt);
      const refused = await consoleCall(rt, ACCOUNT_API, "/alerts/test", {}, cookie);
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error_description: string }).error_description).toMatch(refusal);
    }
  });

  it("in local development a loopback receiver is allowed, and only loopback: a private address is still refused", async () => {
    const rt = await alertingRuntime({ NOTIFY_URL: "https://10.0.0.7/hook" });
    const cookie = await consoleSignIn(rt);
    expect((await consoleCall(rt, ACCOUNT_API, "/alerts/test", {}, cookie)).status).toBe(503);
  });
});

describe("alerts: never in the way", () => {
  it("a receiver that does not answer does not hold the approval beyond the deadline", async () => {
    const rt = await alertingRuntime();
    receiver.hold();
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      // No waitUntil (as where the platform offers none): the request waits ALERT_DEADLINE_MS at
      // most. The approval comes back while the send is still going on: had it waited for the
      // send, the send's own time limit would have ended it first, with a warning.
      const request = await signedRequest(rt, authorizationParams({ scope: "create" }));
      const response = await approveEndpoint(approveRequest(request, { scopes: ["create"] }), rt, {
        ip: CLIENT_IP,
        userAgent: CHROME_UA,
      });
      expect(response.status).toBe(302);
      expect(warn).not.toHaveBeenCalled();
      await receiver.received(1);
      receiver.release();
    } finally {
      warn.mockRestore();
    }
  });

  it("with the platform's waitUntil the answer does not wait at all; the send finishes after it", async () => {
    const rt = await alertingRuntime();
    receiver.hold();
    const background = platform();
    const request = await signedRequest(rt, authorizationParams({ scope: "create" }));
    const response = await approveEndpoint(approveRequest(request, { scopes: ["create"] }), rt, {
      ip: CLIENT_IP,
      userAgent: CHROME_UA,
      waitUntil: background.waitUntil,
    });
    expect(response.status).toBe(302);
    // The app's first approval and the new browser's sign-in, both handed over (and the
    // connection doctor's log of the approval: owner/connection-log.ts).
    expect(background.handedOver()).toBe(3);
    await receiver.received(2);
    receiver.release();
    await background.settled();
    expect(receiver.messages.map((m) => event(m).event).sort()).toEqual(["app-approved", "new-device-sign-in"]);
  });

  it("a receiver that fails: the approval goes through, the console's test says what happened", async () => {
    const rt = await alertingRuntime({ NOTIFY_URL: "http://127.0.0.1:9/hook/closed-port" });
    await approveApp(rt);
    const cookie = await consoleSignIn(rt);
    const failed = await consoleCall(rt, ACCOUNT_API, "/alerts/test", {}, cookie);
    expect(failed.status).toBe(503);
    expect(((await failed.json()) as { error_description: string }).error_description).toMatch(
      /^The test alert did not arrive \(could not reach the receiver/,
    );
  });

  it("without NOTIFY_URL nothing is sent, and the test button says alerts are off", async () => {
    const rt = await fastRuntime();
    await approveApp(rt);
    const cookie = await consoleSignIn(rt);
    const off = await consoleCall(rt, ACCOUNT_API, "/alerts/test", {}, cookie);
    expect(off.status).toBe(400);
    expect(off.headers.get("cache-control")).toBe("no-store");
    expect(((await off.json()) as { error_description: string }).error_description).toMatch(/^Alerts are off/);
    expect(receiver.messages).toHaveLength(0);
  });
});
