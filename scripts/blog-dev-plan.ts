// The pure decisions of `npx netlify-indieauth dev`: which port, which addresses the server is
// told, and the netlify-cli command line. scripts/blog-dev.ts carries them out.
import { LOOPBACK, parseHost, parsePort } from "./ports.ts";

export const DEFAULT_PORT = 8888;
const USAGE = "Usage: npx netlify-indieauth dev [--port N] [--host ADDRESS]";

export type DevArguments = { port: number; host: string } | { error: string };

/** `--port N`, `--port=N` or `-p N`; else PORT from the environment; else 8888. `--host ADDRESS`
 * (or `--host=ADDRESS`): where to listen; else 127.0.0.1, this machine only. */
export function parseDevArguments(argv: readonly string[], env: NodeJS.ProcessEnv = {}): DevArguments {
  let raw: string | undefined;
  let rawHost: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--port" || arg === "-p") raw = argv[++i] ?? "";
    else if (arg.startsWith("--port=")) raw = arg.slice("--port=".length);
    else if (arg === "--host") rawHost = argv[++i] ?? "";
    else if (arg.startsWith("--host=")) rawHost = arg.slice("--host=".length);
    else return { error: `Unknown argument: ${arg}. ${USAGE}` };
  }
  if (raw === undefined) raw = env.PORT ?? String(DEFAULT_PORT);
  const port = parsePort(raw);
  if (port === undefined)
    return {
      error: `Not a port number (1-65535): ${JSON.stringify(raw)}. For example: npx netlify-indieauth dev --port 9000`,
    };
  const host = rawHost === undefined ? LOOPBACK : parseHost(rawHost);
  if (host === undefined)
    return {
      error: `Not an IP address to listen on: ${JSON.stringify(rawHost)}. For example: npx netlify-indieauth dev --host 0.0.0.0 (every network interface)`,
    };
  return { port, host };
}

const LOCAL_ME = /^http:\/\/localhost(:\d+)?\/$/;

/** What the server is told about its addresses, on top of the blog's .env: BASE_URL is this
 * port's origin (with INDIEAUTH_HOST, e.g. auth.localhost:8888, that host's), and a local ME (the
 * blog's own home page) follows the port. Values set in the shell win at run time, as netlify-cli
 * lets them win over .env; `notes` say what changed and why. The build netlify serve runs reads
 * .env over the shell, so an INDIEAUTH_HOST there must name this very port (`error` otherwise). */
export function localAddresses(
  port: number,
  dotEnv: Record<string, string>,
  shell: NodeJS.ProcessEnv,
): { env: Record<string, string>; notes: string[]; error?: string } {
  const origin = `http://localhost:${port}`;
  const env: Record<string, string> = {};
  const notes: string[] = [];
  const authHost = (dotEnv.INDIEAUTH_HOST ?? shell.INDIEAUTH_HOST)?.trim().toLowerCase();
  if (authHost && !authHost.endsWith(`:${port}`)) {
    const fix = dotEnv.INDIEAUTH_HOST === undefined ? "set it" : "change it in .env";
    return {
      env,
      notes,
      error: `INDIEAUTH_HOST=${authHost} is not on this port: ${fix} to ${authHost.replace(/:\d+$/, "")}:${port}, or run on its port (npx netlify-indieauth dev --port N, N its port).`,
    };
  }
  if (shell.BASE_URL === undefined) env.BASE_URL = authHost ? `http://${authHost}` : origin;
  const me = shell.ME ?? dotEnv.ME;
  if (me === undefined || me.trim() === "") {
    env.ME = `${origin}/`;
    notes.push(`ME is not set: you sign in as this blog's local home page, ${origin}/.`);
  } else if (shell.ME === undefined && LOCAL_ME.test(me.trim()) && me.trim() !== `${origin}/`) {
    env.ME = `${origin}/`;
    notes.push(`.env has ME=${me.trim()}, for another port; this run uses ME=${origin}/.`);
  }
  return { env, notes };
}

/** netlify-cli's arguments: `netlify serve` runs the blog's build and then this plugin (which
 * `netlify dev` would not), offline, without edge functions (netlify-cli would otherwise try to
 * download Deno and crash), in the development context (a local ME is refused in production). */
export function serveArguments(ports: { port: number; staticPort: number; functionsPort: number }): string[] {
  return [
    "serve",
    "--context",
    "dev",
    "--offline",
    "--internal-disable-edge-functions",
    "--port",
    String(ports.port),
    "--staticServerPort",
    String(ports.staticPort),
    "--functions-port",
    String(ports.functionsPort),
  ];
}
