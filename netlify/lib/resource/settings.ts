// Which way the resource-server API checks tokens, read from the environment once per cold start.
//   same site   (the default): the blog's functions run beside this server, on the same Netlify
//               site and Blobs store, and read the token's grant directly.
//   other site  (INDIEAUTH_SERVER set): the functions run on another site, and ask this server's
//               POST /introspect with the resource-server credential INTROSPECTION_TOKEN.
import { isLoopbackHost, urlOf } from "../core/urls.ts";

type Env = Record<string, string | undefined>;

export type ResourceSettings =
  | {
      mode: "same-site";
      /** The Blobs store the server writes (INDIEAUTH_STORE), by default its own default. */
      storeName?: string;
      /** The server's issuer (BASE_URL, else Netlify's URL, with a trailing slash), if set. */
      issuer?: string;
    }
  | {
      mode: "introspection";
      /** The server's issuer: INDIEAUTH_SERVER's origin with a trailing slash. */
      issuer: string;
      introspectionEndpoint: string;
      /** INTROSPECTION_TOKEN, the same value as on the server's site. */
      credential: string;
    };

type SettingsResult =
  { ok: true; settings: ResourceSettings } | { ok: false; problem: { variable: string; message: string; fix: string } };

function originOf(raw: string): string | null {
  const url = urlOf(raw);
  if (!url) return null;
  const secure = url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname));
  return !secure || url.username || url.password || url.search || url.hash || url.pathname !== "/" ? null : url.origin;
}

export function readResourceSettings(env: Env): SettingsResult {
  const server = env.INDIEAUTH_SERVER?.trim();
  if (server) {
    const origin = originOf(server);
    if (!origin) {
      return {
        ok: false,
        problem: {
          variable: "INDIEAUTH_SERVER",
          message: `INDIEAUTH_SERVER must be the IndieAuth server's https origin, like https://auth.jane.example (got ${JSON.stringify(server)})`,
          fix: "Set INDIEAUTH_SERVER to the server's address, without a path, or unset it when the server runs on this same site",
        },
      };
    }
    const credential = env.INTROSPECTION_TOKEN?.trim() ?? "";
    if (credential.length < 32) {
      return {
        ok: false,
        problem: {
          variable: "INTROSPECTION_TOKEN",
          message: credential
            ? "INTROSPECTION_TOKEN must be at least 32 characters long"
            : "INTROSPECTION_TOKEN is missing (INDIEAUTH_SERVER is set, so tokens are checked at its /introspect)",
          fix: "Set INTROSPECTION_TOKEN here to the same value as on the IndieAuth server's site",
        },
      };
    }
    return {
      ok: true,
      settings: {
        mode: "introspection",
        issuer: `${origin}/`,
        introspectionEndpoint: `${origin}/introspect`,
        credential,
      },
    };
  }
  const base = env.BASE_URL?.trim() || env.URL?.trim();
  const origin = base ? originOf(base) : null;
  const storeName = env.INDIEAUTH_STORE?.trim();
  return {
    ok: true,
    settings: { mode: "same-site", ...(storeName ? { storeName } : {}), ...(origin ? { issuer: `${origin}/` } : {}) },
  };
}
