import { describe, expect, it } from "vitest";
import { parsePasswordHash } from "../../netlify/lib/core/password-hash.ts";
import { hashPassword, verifyPassword } from "../../netlify/lib/owner/password.ts";

// "correct horse" hashed with bcrypt cost 10 (as htpasswd -B / serverless-indieauth make them).
const BCRYPT = "$2b$10$Ls9eXDq7j6qz1F3pQ9Y0HOmC3tU0r8xkqS0h8r2b6p2Qp0t0mYx3G";

describe("passwords", () => {
  it("verifies an scrypt hash made by hash-password, and refuses other passwords", async () => {
    const hash = await hashPassword("correct horse battery staple");
    expect(hash).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$/);
    const parsed = parsePasswordHash(hash);
    if ("error" in parsed) throw new Error(parsed.error);
    expect(await verifyPassword("correct horse battery staple", parsed)).toBe(true);
    expect(await verifyPassword("correct horse battery stapl", parsed)).toBe(false);
    expect(await verifyPassword("", parsed)).toBe(false);
  });

  it("verifies bcrypt hashes (PASSWORD_SECRET)", async () => {
    const bcrypt = await import("bcryptjs");
    const hash = await bcrypt.hash("correct horse", 4);
    const parsed = parsePasswordHash(hash);
    if ("error" in parsed) throw new Error(parsed.error);
    expect(parsed.kind).toBe("bcrypt");
    expect(await verifyPassword("correct horse", parsed)).toBe(true);
    expect(await verifyPassword("wrong horse", parsed)).toBe(false);
  });

  it("recognises the shape of htpasswd bcrypt hashes", () => {
    expect(parsePasswordHash(BCRYPT)).toMatchObject({ kind: "bcrypt" });
    expect(parsePasswordHash(BCRYPT.replace("$2b$", "$2y$"))).toMatchObject({ kind: "bcrypt" });
  });

  it("explains what is wrong with a value that is not a hash", () => {
    expect(parsePasswordHash("hunter2")).toHaveProperty("error");
    expect(parsePasswordHash("$scrypt$ln=30,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA$" + "A".repeat(43))).toHaveProperty("error");
  });
});
