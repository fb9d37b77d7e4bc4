// The 64 KB body limit (netlify/lib/http/body.ts MAX_BODY_BYTES) at every endpoint that reads a
// body: a body one byte over is refused with 413 before it is parsed: with a truthful
// Content-Length, before a single byte is read; streamed without one (or endless), once the
// limit is passed, with the rest left unread. A body of exactly 64 KB is read as usual. And a
// refused body has no effect, even when it carries a valid request.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { accountApi } from "../../../netlify/lib/endpoints/account.ts";
import { approveEndpoint } from "../../../netlify/lib/endpoints/approve.ts";
import { passkeysApi } from "../../../netlify/lib/endpoints/passkey-api.ts";
import { authorizationEndpoint } from "../../../netlify/lib/endpoints/auth.ts";
import { revocationEndpoint } from "../../../netlify/lib/endpoints/revocation.ts";
import { introspectionEndpoint } from "../../../netlify/lib/endpoints/token-verification.ts";
import { tokenEndpoint } from "../../../netlify/lib/endpoints/token.ts";
import { ACCOUNT_API, PASSKEYS_API } from "../../../netlify/lib/pages/paths.ts";
import { signInHistory } from "../../../netlify/lib/owner/sign-in-history.ts";
import { TEST_PASSWORD } from "../../helpers/env.ts";
import {
  answered,
  expectDocumentedAnswer,
  FORM_TYPES,
  fuzzRuns,
  fuzzRuntime,
  JSON_TYPES,
  propertyTimeout,
  seedNote,
} from "../../helpers/fuzz.ts";
import { signedRequest } from "../../helpers/endpoints.ts";
import { BASE } from "../../helpers/requests.ts";
import { introspection, tokensFor } from "../../helpers/tokens.ts";
import type { TestRuntime } from "../../helpers/runtime.ts";
import { MAX_BODY_BYTES } from "../../../netlify/lib/core/policy.ts";

const RUNS = { sizes: 300 } as const;
const CHUNK = 16 * 1024;

/** Every handler that reads a body, as its function calls it. Console and approve posts come
 * from this site's own page, so that the cross-site check lets them through to the body. */
interface BodyEndpoint {
  name: string;
  path: string;
  /** JSON endpoints answer 413 with the standard error; the approve step with a page. */
  kind: "json" | "page";
  handle: (req: Request, rt: TestRuntime) => Promise<Response>;
}

const info = { ip: "198.51.100.30", userAgent: "fuzz" };
const ENDPOINTS: BodyEndpoint[] = [
  { name: "POST /auth", path: "/auth", kind: "json", handle: (req, rt) => authorizationEndpoint(req, rt) },
  {
    name: "POST /auth/approve",
    path: "/auth/approve",
    kind: "page",
    handle: (req, rt) => approveEndpoint(req, rt, info),
  },
  { name: "POST /token", path: "/token", kind: "json", handle: (req, rt) => tokenEndpoint(req, rt) },
  { name: "POST /introspect", path: "/introspect", kind: "json", handle: (req, rt) => introspectionEndpoint(req, rt) },
  { name: "POST /revoke", path: "/revoke", kind: "json", handle: (req, rt) => revocationEndpoint(req, rt) },
  ...["/sign-in", "/sign-out", "/revoke", "/passkeys/rename", "/passkeys/delete"].map((action): BodyEndpoint => ({
    name: `POST ${ACCOUNT_API}${action}`,
    path: `${ACCOUNT_API}${action}`,
    kind: "json",
    handle: (req, rt) => accountApi(req, rt, info),
  })),
  ...["/authentication-options", "/sign-in", "/registration-options", "/registration"].map((action): BodyEndpoint => ({
    name: `POST ${PASSKEYS_API}${action}`,
    path: `${PASSKEYS_API}${action}`,
    kind: "json",
    handle: (req, rt) => passkeysApi(req, rt, info),
  })),
];

const SAME_ORIGIN = { origin: BASE, "sec-fetch-site": "same-origin" };

/** A body that counts what is read of it: `size` bytes of "a=xxx…" (or endless), in chunks,
 * produced only when asked (highWaterMark 0), so that `read` is exactly what the server read. */
function countedBody(
  size: number,
  chunk = CHUNK,
): { stream: ReadableStream<Uint8Array>; read: () => number; cancelled: () => boolean } {
  let produced = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const length = Math.min(chunk, size - produced);
        if (length <= 0) return controller.close();
        const bytes = new Uint8Array(length).fill(0x78);
        if (produced === 0) bytes.set([0x61, 0x3d].slice(0, length)); // "a="
        produced += length;
        controller.enqueue(bytes);
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, read: () => produced, cancelled: () => cancelled };
}

function post(endpoint: BodyEndpoint, body: BodyInit, headers: Record<string, string>): Request {
  // duplex: "half" is required for a stream body; RequestInit's type does not know it yet.
  const init: RequestInit & { duplex: "half" } = {
    method: "POST",
    body,
    headers: { ...SAME_ORIGIN, ...headers },
    duplex: "half",
  };
  return new Request(`${BASE}${endpoint.path}`, init);
}

/** 413, as JSON with the standard error (or the approve step's page), never parsed. */
async function expectTooLarge(endpoint: BodyEndpoint, response: Response): Promise<void> {
  const answer = await expectDocumentedAnswer(response, { statuses: [413] });
  if (endpoint.kind === "json") {
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(answer.json).toEqual({
      error: "invalid_request",
      error_description: `The request body is larger than ${MAX_BODY_BYTES} bytes.`,
    });
  } else {
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(answer.text).toContain(`larger than ${MAX_BODY_BYTES} bytes`);
  }
}

describe("bodies over 64 KB are refused with 413 before parsing", () => {
  it.each(ENDPOINTS.map((e) => [e.name, e] as const))(
    "%s: one byte over, with a truthful Content-Length: 413 before a byte is read",
    async (_, endpoint) => {
      const rt = await fuzzRuntime();
      const body = countedBody(MAX_BODY_BYTES + 1);
      const response = await answered(endpoint.name, () =>
        endpoint.handle(
          post(endpoint, body.stream, {
            "content-type": "application/x-www-form-urlencoded",
            "content-length": String(MAX_BODY_BYTES + 1),
          }),
          rt,
        ),
      );
      await expectTooLarge(endpoint, response);
      expect(body.read()).toBe(0);
    },
  );

  it.each(ENDPOINTS.map((e) => [e.name, e] as const))(
    "%s: one byte over, streamed without a Content-Length: 413, reading stops at the limit",
    async (_, endpoint) => {
      const rt = await fuzzRuntime();
      const body = countedBody(MAX_BODY_BYTES + 1);
      const response = await answered(endpoint.name, () =>
        endpoint.handle(post(endpoint, body.stream, { "content-type": "application/x-www-form-urlencoded" }), rt),
      );
      await expectTooLarge(endpoint, response);
      expect(body.cancelled()).toBe(true);
    },
  );

  it.each(ENDPOINTS.map((e) => [e.name, e] as const))(
    "%s: an endless body gets 413 after at most one chunk past the limit, not a hang",
    async (_, endpoint) => {
      const rt = await fuzzRuntime();
      const body = countedBody(Number.POSITIVE_INFINITY);
      const response = await answered(endpoint.name, () =>
        endpoint.handle(post(endpoint, body.stream, { "content-type": "application/json" }), rt),
      );
      await expectTooLarge(endpoint, response);
      expect(body.read()).toBeLessThanOrEqual(MAX_BODY_BYTES + CHUNK);
      expect(body.cancelled()).toBe(true);
    },
  );

  it.each(ENDPOINTS.map((e) => [e.name, e] as const))("%s: exactly 64 KB is read, not refused", async (_, endpoint) => {
    const rt = await fuzzRuntime();
    const declared: Record<string, string>[] = [{ "content-length": String(MAX_BODY_BYTES) }, {}];
    for (const contentLength of declared) {
      const body = countedBody(MAX_BODY_BYTES);
      const response = await answered(endpoint.name, () =>
        endpoint.handle(
          post(endpoint, body.stream, { "content-type": "application/x-www-form-urlencoded", ...contentLength }),
          rt,
        ),
      );
      const answer = await expectDocumentedAnswer(response, { statuses: [200, 302, 303, 400, 401, 403, 404] });
      expect(answer.status).not.toBe(413);
      expect(body.read()).toBe(MAX_BODY_BYTES);
    }
  });

  it(
    `any size near the limit, any type, any chunking: 413 exactly when over 64 KB ${seedNote(RUNS.sizes)}`,
    async () => {
      const rt = await fuzzRuntime();
      const spec = fc.record({
        endpoint: fc.constantFrom(...ENDPOINTS),
        size: fc.oneof(
          { weight: 4, arbitrary: fc.integer({ min: MAX_BODY_BYTES - 64, max: MAX_BODY_BYTES + 64 }) },
          { weight: 1, arbitrary: fc.integer({ min: 0, max: 4 * MAX_BODY_BYTES }) },
        ),
        chunk: fc.constantFrom(1024, 4096, CHUNK, 65_536, 100_000),
        type: fc.constantFrom(...FORM_TYPES, ...JSON_TYPES, "multipart/form-data; boundary=x", "text/plain"),
        truthfulLength: fc.boolean(),
      });
      await fc.assert(
        fc.asyncProperty(spec, async ({ endpoint, size, chunk, type, truthfulLength }) => {
          const body = countedBody(size, chunk);
          const headers: Record<string, string> = {
            "content-type": type,
            ...(truthfulLength ? { "content-length": String(size) } : {}),
          };
          const response = await answered(endpoint.name, () =>
            endpoint.handle(post(endpoint, body.stream, headers), rt),
          );
          if (size > MAX_BODY_BYTES) {
            await expectTooLarge(endpoint, response);
            expect(body.read()).toBeLessThanOrEqual(truthfulLength ? 0 : MAX_BODY_BYTES + chunk);
          } else {
            const answer = await expectDocumentedAnswer(response, {
              statuses: [200, 302, 303, 400, 401, 403, 404, 429],
            });
            expect(answer.status).not.toBe(413);
          }
        }),
        fuzzRuns(RUNS.sizes),
      );
    },
    propertyTimeout(RUNS.sizes, 100),
  );
});

describe("a refused body has no effect, even when it carries a valid request", () => {
  /** A urlencoded form padded past the limit with a trailing field. */
  const padded = (fields: Record<string, string>) =>
    new URLSearchParams({ ...fields, pad: "x".repeat(MAX_BODY_BYTES) }).toString();
  const endpoint = (name: string) => ENDPOINTS.find((e) => e.name === name)!;

  it("POST /token with action=revoke and a live token: 413, and the token stays active", async () => {
    const rt = await fuzzRuntime();
    const { access_token } = await tokensFor(rt);
    const token = endpoint("POST /token");
    const response = await token.handle(
      post(token, padded({ action: "revoke", token: access_token }), {
        "content-type": "application/x-www-form-urlencoded",
      }),
      rt,
    );
    await expectTooLarge(token, response);
    expect((await introspection(rt, access_token)).active).toBe(true);
  });

  it("the console sign-in with the right password: 413, no session cookie, no sign-in recorded", async () => {
    const rt = await fuzzRuntime();
    const signIn = endpoint(`POST ${ACCOUNT_API}/sign-in`);
    const response = await signIn.handle(
      post(signIn, padded({ password: TEST_PASSWORD, remember: "true" }), {
        "content-type": "application/x-www-form-urlencoded",
      }),
      rt,
    );
    expect(response.headers.get("set-cookie")).toBeNull();
    await expectTooLarge(signIn, response);
    expect((await signInHistory(rt.store, rt.now())).events).toEqual([]);
  });

  it("the approve step with a genuine request and the right password: 413, no code, no redirect", async () => {
    const rt = await fuzzRuntime();
    const request = await signedRequest(rt);
    const approve = endpoint("POST /auth/approve");
    const response = await approve.handle(
      post(approve, padded({ request, decision: "approve", password: TEST_PASSWORD, remember: "on" }), {
        "content-type": "application/x-www-form-urlencoded",
      }),
      rt,
    );
    expect(response.headers.get("location")).toBeNull();
    expect(response.headers.get("set-cookie")).toBeNull();
    await expectTooLarge(approve, response);
    expect((await signInHistory(rt.store, rt.now())).events).toEqual([]);
  });
});
