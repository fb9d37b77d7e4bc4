// Whether a password is good enough to become the owner's PASSWORD_HASH, for hash-password.
// Strength is judged by zxcvbn (@zxcvbn-ts/core with its common-language package): the 30,000
// or so most common passwords from public breach lists, keyboard walks, repeats, sequences,
// dates and l33t spellings of all of these. Loaded on use (it takes ~0.4 s): the check runs in
// this command only, never in a function.

/** Shortest password accepted. */
export const MIN_LENGTH = 8;
/** Longest: the server compares at most this many characters (owner/password.ts). */
export const MAX_LENGTH = 1024;
/** zxcvbn's score from 0 to 4; 3 is "safely unguessable" (about 10^8 guesses or more), which
 * still holds if a copy of the hash is attacked offline for a while. */
export const MIN_SCORE = 3;

/** zxcvbn's warnings, in words (its own translations package would add ~1 MB). */
const WARNINGS: Readonly<Record<string, string>> = {
  topTen: "it is one of the ten most common passwords",
  topHundred: "it is one of the hundred most common passwords",
  common: "it is in the lists of common passwords attackers try first",
  similarToCommon: "it is a common password with small changes, which attackers try first",
  wordByItself: "a single word is easy to guess",
  namesByThemselves: "names on their own are easy to guess",
  commonNames: "common names are easy to guess",
  userInputs: "it contains personal information",
  straightRow: "a straight row of keys is easy to guess",
  keyPattern: "a short keyboard pattern is easy to guess",
  simpleRepeat: 'repeated characters like "aaa" are easy to guess',
  extendedRepeat: 'repeated patterns like "abcabcabc" are easy to guess',
  sequences: 'sequences like "abc" or "6543" are easy to guess',
  recentYears: "recent years are easy to guess",
  dates: "dates are easy to guess",
};

export type StrengthVerdict = { ok: true } | { ok: false; problem: string };

type Checker = (password: string) => { score: number; feedback: { warning: string | null } };

let checker: Promise<Checker> | undefined;

async function loadChecker(): Promise<Checker> {
  const [{ ZxcvbnFactory }, common] = await Promise.all([
    import("@zxcvbn-ts/core"),
    import("@zxcvbn-ts/language-common"),
  ]);
  const zxcvbn = new ZxcvbnFactory({ dictionary: { ...common.dictionary }, graphs: common.adjacencyGraphs });
  return (password) => zxcvbn.check(password);
}

/** Length first (no library needed), then the guessability estimate. */
export async function checkPasswordStrength(password: string): Promise<StrengthVerdict> {
  if (password.length < MIN_LENGTH)
    return { ok: false, problem: `Use a password of at least ${MIN_LENGTH} characters.` };
  if (password.length > MAX_LENGTH)
    return { ok: false, problem: `Use a password of at most ${MAX_LENGTH} characters.` };
  checker ??= loadChecker();
  const { score, feedback } = (await checker)(password);
  if (score >= MIN_SCORE) return { ok: true };
  const why = (feedback.warning && WARNINGS[feedback.warning]) || "it would be guessed quickly";
  return {
    ok: false,
    problem: `That password is too easy to guess: ${why}. Use a longer one: several unrelated words, or what a password manager makes up.`,
  };
}
