// `npm run hash-password`: prints the PASSWORD_HASH for a password. On a terminal it asks
// without echo, says at once when the password is too short or too easy to guess (and asks
// again), then asks to repeat it; otherwise it reads the password from standard input and
// prints only the hash (for scripts: `printf %s "$PW" | npm run -s hash-password`).
import { stdin, stdout, stderr } from "node:process";
import { hashPassword } from "../netlify/lib/owner/password.ts";
import { checkPasswordStrength } from "./password-strength.ts";

/** Tries at the first prompt before giving up. */
const TRIES = 3;

function askHidden(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // Raw mode (no echo) before the prompt shows: what is typed as soon as it appears is never echoed.
    stdin.setRawMode(true);
    stderr.write(question);
    let answer = "";
    stdin.resume();
    stdin.setEncoding("utf8");
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === "\r" || char === "\n" || char === "\u0004") {
          stdin.setRawMode(false);
          stdin.pause();
          stdin.off("data", onData);
          stderr.write("\n");
          resolve(answer);
          return;
        }
        if (char === "\u0003") {
          stdin.setRawMode(false);
          stderr.write("\n");
          reject(new Error("cancelled"));
          return;
        }
        if (char === "\u007f" || char === "\b") answer = answer.slice(0, -1);
        else answer += char;
      }
    };
    stdin.on("data", onData);
  });
}

async function readAll(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

/** On a terminal: a password that passes the checks, asked for until one does (or null). */
async function askAcceptable(): Promise<string | null> {
  for (let tryNumber = 1; tryNumber <= TRIES; tryNumber++) {
    const password = await askHidden("Password: ");
    const verdict = await checkPasswordStrength(password);
    if (verdict.ok) return password;
    stderr.write(`${verdict.problem}\n`);
  }
  stderr.write("Nothing was printed.\n");
  return null;
}

async function main(): Promise<number> {
  let password: string;
  if (stdin.isTTY) {
    const chosen = await askAcceptable();
    if (chosen === null) return 1;
    password = chosen;
    if (password !== (await askHidden("Again: "))) {
      stderr.write("The two passwords differ; nothing was printed.\n");
      return 1;
    }
  } else {
    password = await readAll();
    const verdict = await checkPasswordStrength(password);
    if (!verdict.ok) {
      stderr.write(`${verdict.problem} Nothing was printed.\n`);
      return 1;
    }
  }
  const hash = await hashPassword(password);
  if (stdin.isTTY) stderr.write("Set this as PASSWORD_HASH (in Netlify's environment variables, or in .env):\n");
  stdout.write(`${hash}\n`);
  return 0;
}

process.exitCode = await main().catch((error: unknown) => {
  stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
});
