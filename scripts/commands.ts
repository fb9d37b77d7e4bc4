// How a message names this package's commands: `npm run <name>` in a clone of this repository,
// `npx netlify-indieauth <name>` in a blog that installed the package, where no such npm scripts
// exist. The packaged command (scripts/cli.mjs) says which, in INVOKED_BY_CLI.
export const INVOKED_BY_CLI = "NETLIFY_INDIEAUTH_CLI";

export type CommandName = "hash-password" | "check-config" | "dev";

/** True when the running script was started by `npx netlify-indieauth …`. */
export function fromPackagedCli(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[INVOKED_BY_CLI] === "1";
}

/** The command a person types for `name` where this script runs. `dev` is the blog's local
 * server; in this repository that is `npm start`. */
export function commandFor(name: CommandName, env: NodeJS.ProcessEnv = process.env): string {
  if (fromPackagedCli(env)) return `npx netlify-indieauth ${name}`;
  return name === "dev" ? "npm start" : `npm run ${name}`;
}
