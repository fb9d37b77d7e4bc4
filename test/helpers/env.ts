// A valid environment for tests, built once (an scrypt hash takes a moment).
import { hashPassword } from "../../netlify/lib/owner/password.ts";
import type { Env } from "../../netlify/lib/platform/config.ts";

export const TEST_PASSWORD = "correct horse battery staple";
export const TEST_SECRET = "test-secret-that-is-at-least-32-characters-long";

let passwordHash: Promise<string> | undefined;

export function testPasswordHash(): Promise<string> {
  passwordHash ??= hashPassword(TEST_PASSWORD);
  return passwordHash;
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
