// A valid environment for tests, built once (an scrypt hash takes a moment).
import { randomBytes, scrypt } from "node:crypto";
import { hashPassword } from "../../netlify/lib/owner/password.ts";
import type { Env } from "../../netlify/lib/platform/config.ts";

export const TEST_PASSWORD = "correct horse battery staple";
export const TEST_SECRET = "test-secret-that-is-at-least-32-characters-long";

let passwordHash: Promise<string> | undefined;

/** The test password's scrypt hash. Under vitest at the lowest cost the server accepts (ln=14,
 * where `hash-password` makes ln=15): the server reads the cost from the hash, so every sign-in
 * in the tests verifies in half the time, through the same code (the tests of the cost itself,
 * hash-password and password.test.ts, use hashPassword). `npm run bench` measures sign-ins as
 * deployed, so outside vitest it is hashPassword's own. */
export function testPasswordHash(): Promise<string> {
  passwordHash ??= process.env.VITEST ? cheapHash() : hashPassword(TEST_PASSWORD);
  return passwordHash;
}

function cheapHash(): Promise<string> {
  return new Promise((resolve, reject) => {
    const salt = randomBytes(16);
    scrypt(TEST_PASSWORD.normalize("NFC"), salt, 32, { N: 2 ** 14, r: 8, p: 1 }, (error, key) => {
      const b64 = (b: Buffer) => b.toString("base64").replace(/=+$/, "");
      if (error) reject(error);
      else resolve(`$scrypt$ln=14,r=8,p=1$${b64(salt)}$${b64(key)}`);
    });
  });
}

export async function testEnv(overrides: Env = {}): Promise<Env> {
  return {
    ME: "https://jane.example/",
    SECRET: TEST_SECRET,
    PASSWORD_HASH: await testPasswordHash(),
    BASE_URL: "https://auth.jane.example",
    PROFILE_NAME: "Jane Doe",
    PROFILE_PHOTO: "https://jane.example/photo.jpg",
    PROFILE_EMAIL: "jane@jane.example",
    ...overrides,
  };
}
