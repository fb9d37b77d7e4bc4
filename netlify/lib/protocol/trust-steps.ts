// GET /auth and POST /auth/approve as ordered lists of named steps, each tagged by what is known
// when it runs: before the redirect URI is verified, a failure is shown to the person, never sent
// to the client. See docs/architecture.md, "One sign-in, step by step"; moving a step across the
// line fails test/adversarial/attacks/trust-line.test.ts.

export interface Step<S> {
  readonly name: string;
  /** What is known when it runs: whether the redirect URI is verified yet. */
  readonly known: "unverified" | "verified";
  /** Does its part; a Response ends the request with it. */
  run(state: S): void | Response | Promise<void | Response>;
}

/** Runs the steps in order, calling `crossLine` once before the first verified step and
 * `entering` before each (so that a refusal can say which step refused it); the first Response
 * a step gives ends the run. An unverified step after the line is a bug, refused. */
export async function runSteps<S>(
  steps: readonly Step<S>[],
  state: S,
  crossLine: (state: S) => void | Promise<void>,
  entering?: (step: Step<S>) => void,
): Promise<Response | undefined> {
  let crossed = false;
  for (const step of steps) {
    if (step.known === "unverified" && crossed)
      throw new TypeError(`the step "${step.name}" runs before the redirect URI is verified, yet comes after the line`);
    if (step.known === "verified" && !crossed) {
      crossed = true;
      await crossLine(state);
    }
    entering?.(step);
    const answer = await step.run(state);
    if (answer) return answer;
  }
  return undefined;
}
