// The addresses `npx netlify-indieauth dev` chose for its run (a local ME that follows the port,
// BASE_URL), carried into the build plugin. The functions of `netlify serve` see the shell's
// values before .env's, but the build it runs (and so the plugin, which bakes ME into the pages)
// sees .env's over the shell's: a `.env` written for port 8888 would put 8888 on the pages while
// the tokens said the port given. So the command also passes the run's values in a variable that
// no .env sets, and the plugin takes them before it checks or builds anything, never in
// production.
export const DEV_ADDRESSES_VARIABLE = "NETLIFY_INDIEAUTH_DEV_ADDRESSES";
const CARRIED = ["ME", "BASE_URL"] as const;

/** The variable's value: the run's ME and BASE_URL, as its functions will see them. */
export function devAddressesValue(run: Record<string, string | undefined>): string {
  return JSON.stringify(
    Object.fromEntries(CARRIED.flatMap((key) => (run[key] === undefined ? [] : [[key, run[key]]]))),
  );
}

/** Sets the run's values in `env` (the build's), outside production; says what changed. */
export function takeDevAddresses(env: NodeJS.ProcessEnv): string[] {
  const raw = env[DEV_ADDRESSES_VARIABLE];
  if (!raw || env.CONTEXT === "production") return [];
  let run: unknown;
  try {
    run = JSON.parse(raw);
  } catch {
    return [];
  }
  const notes: string[] = [];
  for (const key of CARRIED) {
    const value = (run as Record<string, unknown> | null)?.[key];
    if (typeof value !== "string" || env[key] === value) continue;
    notes.push(
      `${key}=${value} for this run of npx netlify-indieauth dev${env[key] === undefined ? "" : ` (not ${env[key]}, from .env)`}`,
    );
    env[key] = value;
  }
  return notes;
}
