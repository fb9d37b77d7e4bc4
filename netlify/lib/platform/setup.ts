// How this server is deployed, which decides whose pages share its origin:
//   standalone     a site of its own (`npm run build`): no page but its own runs on its origin;
//   shared-origin  added to the owner's blog by the build plugin, on the blog's own host: every
//                  script of the blog runs with the sign-in page's origin;
//   auth-host      added to the blog by the plugin, but answering on a host of its own
//                  (INDIEAUTH_HOST, a domain alias of the blog's site such as auth.jane.example),
//                  where no blog page is served; the functions refuse every other host.
// Whether the plugin built the functions is baked into them by the build (scripts/build-functions.ts
// defines INDIEAUTH_BUILT_FOR), never guessed by comparing addresses: ME on jane.example and
// BASE_URL on www.jane.example are one site all the same.
import { reporter, type Found } from "./config-values.ts";

/** Set by esbuild's `define` when the functions are built; absent when the sources run as they
 * are (tests, scripts), which is the standalone build's code. */
declare const INDIEAUTH_BUILT_FOR: string | undefined;

export type Build = "standalone" | "plugin";
export type Setup = "standalone" | "shared-origin" | "auth-host";

export function builtFor(): Build {
  return typeof INDIEAUTH_BUILT_FOR === "string" && INDIEAUTH_BUILT_FOR === "plugin" ? "plugin" : "standalone";
}

/** A host name with an optional port (the port in development only), lowercase. */
const HOST = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*(?::\d{1,5})?$/;

/** The setup, from the build and INDIEAUTH_HOST, which must be BASE_URL's host. */
export function readSetup(
  raw: string | undefined,
  build: Build,
  baseUrl: string | undefined,
  development: boolean,
  problems: Found[],
): Setup {
  const host = raw?.trim().toLowerCase();
  if (!host) return build === "plugin" ? "shared-origin" : "standalone";
  const problem = reporter(problems, "INDIEAUTH_HOST");
  if (build !== "plugin") {
    problem(
      "INDIEAUTH_HOST is for the build plugin (a blog's site); a deployment of its own already has a host of its own: leave it unset",
    );
    return "standalone";
  }
  if (!HOST.test(host) || (!development && host.includes(":"))) {
    problem(`INDIEAUTH_HOST must be a host name only, like auth.jane.example: ${JSON.stringify(raw)}`);
    return "shared-origin";
  }
  if (baseUrl !== undefined && new URL(baseUrl).host !== host)
    problem(`BASE_URL must be on INDIEAUTH_HOST: set BASE_URL=https://${host}`);
  return "auth-host";
}
