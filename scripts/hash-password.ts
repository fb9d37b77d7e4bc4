// `npm run hash-password`: prints the PASSWORD_HASH for a password. On a terminal it asks
// twice without echo; otherwise it reads the password from standard input and prints only
// the hash (for scripts: `printf %s "$PW" | npm run -s hash-password`).
import { stdin, stdout, stderr } from "node:process";
import { hashPassword } from "../netlify/lib/owner/password.ts";

function askHidden(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    stderr.write(question);
    let answer = "";
    stdin.setRawMode(true);
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
  for await (const chunk of stdin) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "");
}

async function main(): Promise<number> {
  let password: string;
  if (stdin.isTTY) {
    password = await askHidden("Password: ");
    const again = await askHidden("Again: ");
    if (password !== again) {
      stderr.write("The two passwords differ; nothing was printed.\n");
      return 1;
    }
  } else {
    password = await readAll();
  }
  if (password.length < 8) {
    stderr.write("Use a password of at least 8 characters.\n");
    return 1;
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
