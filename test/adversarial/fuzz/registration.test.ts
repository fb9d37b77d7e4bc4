// Fuzzing POST /register (issue 32) with generated client metadata: real hosts' values beside
// hostile ones, members of every JSON type, odd content types. Whatever comes, the answer is a
// 201 whose client_id reads back as exactly what it answered, or a documented refusal; never a
// 500; and nothing is ever stored.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CURSOR_REGISTRATION } from "../../helpers/dcr-hosts.ts";
import { endpoints } from "../../helpers/endpoints.ts";
import {
  answered,
  fuzzRuns,
  fuzzRuntime,
  hostileString,
  Outcomes,
  propertyTimeout,
  seedNote,
} from "../../helpers/fuzz.ts";
import { BASE } from "../../helpers/requests.ts";

const RUNS = 400;
const GOOD_URIS = [
  ...CURSOR_REGISTRATION.redirect_uris,
  "com.example.app:/callback",
  "http://127.0.0.1/callback",
  "http://[::1]:8080/cb",
];
const BAD_URIS = [
  "javascript:alert(1)",
  "data:text/html,x",
  "http://evil.example/cb",
  "https://a.example/cb#x",
  "https://*.example/cb",
  "myapp:/cb",
  `${BASE}/cb`,
  "",
  "/cb",
  "https://u:p@a.example/",
];
const METHODS = ["none", "client_secret_basic", "client_secret_post", "private_key_jwt", "", "NONE"];

const uri = fc.oneof(
  fc.constantFrom(...GOOD_URIS),
  fc.constantFrom(...BAD_URIS),
  hostileString(GOOD_URIS, { maxLength: 3000 }),
);
const anything = fc.jsonValue({ maxDepth: 2 });
/** Mostly what a host would send, often one hostile value, sometimes anything at all. */
const usually = <T, U>(good: fc.Arbitrary<T>, other: fc.Arbitrary<U>) =>
  fc.oneof({ weight: 5, arbitrary: good }, { weight: 1, arbitrary: other }, { weight: 1, arbitrary: anything });
const metadata = fc.record(
  {
    redirect_uris: usually(
      fc.array(fc.constantFrom(...GOOD_URIS), { minLength: 1, maxLength: 3 }),
      fc.array(uri, { minLength: 0, maxLength: 10 }),
    ),
    client_name: usually(
      fc.constantFrom("Cursor", "MCP Inspector", "Gemini CLI MCP Client"),
      hostileString(["Cursor"], { maxLength: 1000 }),
    ),
    token_endpoint_auth_method: usually(fc.constant("none"), fc.constantFrom(...METHODS)),
    grant_types: usually(
      fc.constant(["authorization_code", "refresh_token"]),
      fc.array(
        fc.constantFrom(
          "authorization_code",
          "refresh_token",
          "client_credentials",
          "urn:ietf:params:oauth:grant-type:device_code",
        ),
      ),
    ),
    response_types: usually(fc.constant(["code"]), fc.array(fc.constantFrom("code", "token"))),
    scope: anything,
    logo_uri: anything,
    jwks: anything,
  },
  { requiredKeys: ["redirect_uris"] },
);
const contentType = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.constantFrom("application/json", "application/json; charset=utf-8", "application/oauth-client+json"),
  },
  { weight: 1, arbitrary: fc.constantFrom("text/plain", "application/x-www-form-urlencoded", "") },
);

const REFUSALS: Record<number, readonly string[]> = {
  400: ["invalid_redirect_uri", "invalid_client_metadata", "invalid_request"],
  413: ["invalid_request"],
};

describe("POST /register, fuzzed", () => {
  it(
    `answers every body with a registration that reads back, or a documented refusal, and stores nothing ${seedNote(RUNS)}`,
    async () => {
      const rt = await fuzzRuntime();
      const outcomes = new Outcomes("register");
      await fc.assert(
        fc.asyncProperty(metadata, contentType, async (body, type) => {
          const request = new Request(`${BASE}/register`, {
            method: "POST",
            headers: type ? { "Content-Type": type } : {},
            body: JSON.stringify(body),
          });
          const response = await answered("POST /register", () =>
            endpoints.register(request, rt, { ip: "203.0.113.9", userAgent: "fuzz" }),
          );
          outcomes.add(response.status);
          expect(response.headers.get("cache-control")).toBe("no-store");
          const answer = (await response.json()) as Record<string, unknown>;
          if (response.status === 201) {
            const document = await endpoints.register(new Request(answer.client_id as string), rt, {
              ip: "203.0.113.9",
              userAgent: "fuzz",
            });
            expect(document.status).toBe(200);
            const { client_id_issued_at: _issued, ...registered } = answer;
            expect(await document.json()).toEqual(registered);
            return;
          }
          expect(REFUSALS[response.status], `${response.status} ${JSON.stringify(answer)}`).toContain(answer.error);
        }),
        fuzzRuns(RUNS),
      );
      outcomes.expectReached([201, 400]);
      expect(await rt.store.list("")).toEqual([]);
    },
    propertyTimeout(RUNS),
  );
});
