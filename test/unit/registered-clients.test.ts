// The pieces of registration (issue 32) that need no server: which redirect URIs are which kind
// (RFC 8252 7), what the sign-in page says of each, and the signed client_id's format, which only
// its own key and format name verify.
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { redirectKindOf } from "../../netlify/lib/core/redirect-kind.ts";
import { deriveKey } from "../../netlify/lib/crypto/secrets.ts";
import { registeredAppWords } from "../../netlify/lib/pages/registered-app.ts";
import { readRegisteredClientId, registeredClientId } from "../../netlify/lib/protocol/registered-clients.ts";

const BASE = "https://auth.jane.example";
const KEY = deriveKey("a-secret-of-at-least-thirty-two-characters!", "registered-client");

describe("redirect URI kinds (RFC 8252 7)", () => {
  it.each([
    ["http://127.0.0.1:8080/callback", "loopback"],
    ["http://[::1]/callback", "loopback"],
    ["http://localhost:8787/callback", "loopback"],
    ["https://www.cursor.com/agents/mcp/oauth/callback", "web"],
    ["cursor://anysphere.cursor-mcp/oauth/callback", "app"],
    ["com.example.app:/oauth2redirect", "app"],
    ["vscode://vscode.github-authentication/did-authenticate", "app"],
    ["http://evil.example/callback", null],
    ["myapp:/callback", null],
    ["myapp://callback", null],
    ["ftp://files.example.com/x", null],
    ["mailto:jane@jane.example", null],
    ["javascript:alert(1)", null],
    ["chrome-extension://abc.def/x", null],
  ])("%s is %s", (uri, kind) => {
    expect(redirectKindOf(new URL(uri))).toBe(kind);
  });
});

describe("what the sign-in page says of a registered app", () => {
  it("quotes its name, says it is not verified, and shows where the answer goes", () => {
    expect(registeredAppWords("Cursor", "http://localhost:8787/callback")).toEqual({
      heading: '"Cursor"',
      claim: 'This app registered itself as "Cursor"; this name is not verified.',
      target: "localhost:8787, on this computer",
      means:
        "It receives this sign-in at a local address on this computer, and any program there could receive it instead.",
    });
    expect(registeredAppWords("Cursor", "cursor://anysphere.cursor-mcp/oauth/callback")).toMatchObject({
      target: "cursor://anysphere.cursor-mcp",
      means: expect.stringContaining("any app on this computer could claim"),
    });
    expect(registeredAppWords("Cursor", "com.example.app:/callback").target).toBe("com.example.app:");
    expect(registeredAppWords("Cursor", "https://www.cursor.com/agents/mcp/oauth/callback")).toMatchObject({
      target: "www.cursor.com",
      means: "It receives this sign-in at that website.",
    });
    expect(registeredAppWords(undefined, "http://127.0.0.1:5000/cb")).toMatchObject({
      heading: "an app that registered itself",
      claim: "This app registered itself here, without a name.",
    });
  });
});

describe("a registered app's client_id", () => {
  const registration = { name: "Cursor", redirectUris: ["http://localhost:8787/callback"] };

  it("is read back with its own key, and only with it", () => {
    const clientId = new URL(registeredClientId(BASE, KEY, registration));
    expect(readRegisteredClientId(BASE, KEY, clientId)).toEqual({ registration });
    expect(
      readRegisteredClientId(BASE, deriveKey("a-secret-of-at-least-thirty-two-characters!", "client-logo"), clientId),
    ).toMatchObject({ invalid: expect.any(String) });
    expect(readRegisteredClientId("https://other.example", KEY, clientId)).toBeNull();
  });

  it("is not verified by an HMAC of the payload alone: the tag covers the format's own name", () => {
    const clientId = registeredClientId(BASE, KEY, registration);
    const payload = clientId.slice(`${BASE}/register/`.length).split(".")[0]!;
    const bare = createHmac("sha256", KEY).update(payload).digest().subarray(0, 16).toString("base64url");
    expect(readRegisteredClientId(BASE, KEY, new URL(`${BASE}/register/${payload}.${bare}`))).toMatchObject({
      invalid: expect.any(String),
    });
  });

  it("differs for every registration of the same metadata (a nonce), and refuses one that would be too long", () => {
    expect(registeredClientId(BASE, KEY, registration)).not.toBe(registeredClientId(BASE, KEY, registration));
    const long = {
      name: "n".repeat(60),
      redirectUris: Array.from({ length: 8 }, (_, i) => `https://app.example/${String(i).repeat(300)}`),
    };
    expect(() => registeredClientId(BASE, KEY, long)).toThrow(/too long/);
  });
});
