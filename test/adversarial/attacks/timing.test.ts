// Attack catalogue: timing. A comparison that stops at the first differing byte tells a
// patient attacker how much of a guessed secret is right. Every comparison of a secret must go
// through a constant-time primitive (constantTimeEqual, which is crypto.timingSafeEqual;
// bcrypt's own compare). Checked two ways: by reading the code (every ===, !==, ==, != and
// equality-like call in netlify/lib whose operands name a secret is either exempt by a rule
// below or on a justified allow-list), and by watching the primitive being used at run time.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import ts from "typescript";
import { beforeEach, describe, expect, it, vi } from "vitest";

const spies = vi.hoisted(() => ({ timingSafeEqual: [] as unknown[][], constantTimeEqual: [] as unknown[][] }));

vi.mock("node:crypto", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:crypto")>();
  const timingSafeEqual = (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
    spies.timingSafeEqual.push([a, b]);
    return real.timingSafeEqual(a, b);
  };
  return { ...real, default: { ...real, timingSafeEqual }, timingSafeEqual };
});

vi.mock("../../../netlify/lib/crypto/secrets.ts", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../netlify/lib/crypto/secrets.ts")>();
  return {
    ...real,
    constantTimeEqual: (a: string, b: string) => {
      spies.constantTimeEqual.push([a, b]);
      return real.constantTimeEqual(a, b);
    },
  };
});

const { constantTimeEqual, secretHash } = await import("../../../netlify/lib/crypto/secrets.ts");
const { verifierMatches, s256 } = await import("../../../netlify/lib/protocol/pkce.ts");
const { tokenMatches, newGrantToken, newGrantId } = await import("../../../netlify/lib/protocol/grant-tokens.ts");
const { hashPassword, verifyPassword } = await import("../../../netlify/lib/owner/password.ts");
const { parsePasswordHash } = await import("../../../netlify/lib/core/password-hash.ts");

const LIB = new URL("../../../netlify/lib/", import.meta.url).pathname;

// ---------------------------------------------------------------------------------------
// Reading the code

/** Words that mark a value as a secret, or derived from one. */
const SECRET_WORDS = new Set([
  "hash",
  "hashes",
  "token",
  "tokens",
  "secret",
  "secrets",
  "code",
  "codes",
  "verifier",
  "verifiers",
  "challenge",
  "challenges",
  "password",
  "passwords",
  "signature",
  "signatures",
]);

/** codeVerifier -> code, verifier; SECRET_PREFIX -> secret, prefix; charCodeAt -> char, code, at. */
function words(identifier: string): string[] {
  return identifier
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(/[\s_$]+/)
    .map((w) => w.toLowerCase())
    .filter((w) => w !== "");
}

function namesSecret(node: ts.Node): boolean {
  let found = false;
  const visit = (n: ts.Node): void => {
    if (ts.isIdentifier(n) && words(n.text).some((w) => SECRET_WORDS.has(w))) found = true;
    if (!found) ts.forEachChild(n, visit);
  };
  visit(node);
  return found;
}

const EQUALITY = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);
/** Calls that compare with === inside, or stop at the first difference. */
const EQUALITY_CALLS = new Set([
  "equals",
  "compare",
  "localeCompare",
  "includes",
  "indexOf",
  "lastIndexOf",
  "startsWith",
  "endsWith",
]);

/**
 * Exempt by rule, wherever they appear:
 *  - the other side is a literal (null, undefined, "", "malformed", a number, true/false):
 *    comparing with a constant everybody knows tells nothing but "is it that constant";
 *  - either side is a `typeof`: a type is not secret;
 *  - either side is a `.length` or `.size`: every secret here has a fixed, public shape.
 */
function exemptByRule(left: ts.Expression, right: ts.Expression): boolean {
  const isConstant = (e: ts.Expression): boolean =>
    ts.isStringLiteral(e) ||
    ts.isNoSubstitutionTemplateLiteral(e) ||
    ts.isNumericLiteral(e) ||
    e.kind === ts.SyntaxKind.NullKeyword ||
    e.kind === ts.SyntaxKind.TrueKeyword ||
    e.kind === ts.SyntaxKind.FalseKeyword ||
    (ts.isIdentifier(e) && e.text === "undefined");
  const isShape = (e: ts.Expression): boolean =>
    ts.isTypeOfExpression(e) ||
    (ts.isPropertyAccessExpression(e) && (e.name.text === "length" || e.name.text === "size"));
  return isConstant(left) || isConstant(right) || isShape(left) || isShape(right);
}

/** Comparisons that name a secret but compare nothing secret, each with its reason. Keyed by
 * file and the expression's text, so that any new comparison needs a new, reasoned entry. */
const ALLOWED: Record<string, string> = {
  "owner/password.ts: bcrypt.compare(password, hash.hash)":
    "bcryptjs computes the candidate's hash and compares it with its own constant-time string comparison (safeStringCompare).",
  "crypto/secrets.ts: value.startsWith(SECRET_PREFIX[kind])":
    "compares the public type prefix (ic_), not the secret part.",
  "platform/local-write-lock.ts: (error as { code?: unknown }).code === code":
    "compares a Node.js error's code (EEXIST, ENOENT), not a secret.",
};

interface Finding {
  where: string;
  line: number;
}

async function secretComparisons(): Promise<Finding[]> {
  const files = (await readdir(LIB, { recursive: true })).filter((f) => f.endsWith(".ts")).sort();
  const findings: Finding[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, await readFile(join(LIB, file), "utf8"), ts.ScriptTarget.Latest, true);
    const report = (node: ts.Node) =>
      findings.push({
        where: `${file}: ${node.getText(source)}`,
        line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
      });
    const visit = (node: ts.Node): void => {
      if (
        ts.isBinaryExpression(node) &&
        EQUALITY.has(node.operatorToken.kind) &&
        (namesSecret(node.left) || namesSecret(node.right)) &&
        !exemptByRule(node.left, node.right)
      ) {
        report(node);
      }
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        EQUALITY_CALLS.has(node.expression.name.text)
      ) {
        if (namesSecret(node.expression.expression) || node.arguments.some(namesSecret)) report(node);
      }
      if (ts.isSwitchStatement(node) && namesSecret(node.expression)) report(node.expression);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return findings;
}

function functionNamed(source: ts.SourceFile, name: string): ts.FunctionDeclaration {
  let found: ts.FunctionDeclaration | undefined;
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionDeclaration(n) && n.name?.text === name) found = n;
    ts.forEachChild(n, visit);
  };
  visit(source);
  if (!found) throw new Error(`no function ${name}`);
  return found;
}

function callsIn(node: ts.Node, source: ts.SourceFile): string[] {
  const calls: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n)) calls.push(n.expression.getText(source));
    ts.forEachChild(n, visit);
  };
  visit(node);
  return calls;
}

async function parse(file: string): Promise<ts.SourceFile> {
  return ts.createSourceFile(file, await readFile(join(LIB, file), "utf8"), ts.ScriptTarget.Latest, true);
}

describe("timing: reading the code", () => {
  it("no secret is compared with ===, !==, ==, !=, switch or an equality-like call outside the justified allow-list", async () => {
    const unexplained = (await secretComparisons()).filter((f) => !(f.where in ALLOWED));
    expect(unexplained).toEqual([]);
  });

  it("the allow-list has no stale entries (each names a comparison that still exists)", async () => {
    const found = new Set((await secretComparisons()).map((f) => f.where));
    expect(Object.keys(ALLOWED).filter((entry) => !found.has(entry))).toEqual([]);
  });

  it("the inspection finds what it is meant to find (a control on its own rules)", () => {
    const probe = ts.createSourceFile(
      "probe.ts",
      `if (s256(verifier) === challenge) {}
       if (presented !== grant.refresh.hash) {}
       if (hashes.includes(presented)) {}
       if (bearer == config.introspectionToken) {}
       if (Buffer.from(a).equals(expectedSignature)) {}
       if (token === "malformed" || code.length === 43 || typeof secret === "string") {}`,
      ts.ScriptTarget.Latest,
      true,
    );
    const hits: string[] = [];
    const visit = (n: ts.Node): void => {
      if (
        ts.isBinaryExpression(n) &&
        EQUALITY.has(n.operatorToken.kind) &&
        (namesSecret(n.left) || namesSecret(n.right)) &&
        !exemptByRule(n.left, n.right)
      )
        hits.push(n.getText(probe));
      if (
        ts.isCallExpression(n) &&
        ts.isPropertyAccessExpression(n.expression) &&
        EQUALITY_CALLS.has(n.expression.name.text) &&
        (namesSecret(n.expression.expression) || n.arguments.some(namesSecret))
      ) {
        hits.push(n.getText(probe));
      }
      ts.forEachChild(n, visit);
    };
    visit(probe);
    expect(hits).toEqual([
      "s256(verifier) === challenge",
      "presented !== grant.refresh.hash",
      "hashes.includes(presented)",
      "bearer == config.introspectionToken",
      "Buffer.from(a).equals(expectedSignature)",
    ]);
  });

  it("constantTimeEqual compares contents only with crypto.timingSafeEqual, and never with ===", async () => {
    const source = await parse("crypto/secrets.ts");
    expect(source.text).toMatch(/import \{[^}]*\btimingSafeEqual\b[^}]*\} from "node:crypto"/);
    const fn = functionNamed(source, "constantTimeEqual");
    expect(callsIn(fn, source).filter((c) => c === "timingSafeEqual").length).toBeGreaterThanOrEqual(1);
    const comparisons: string[] = [];
    const visit = (n: ts.Node): void => {
      if (ts.isBinaryExpression(n) && EQUALITY.has(n.operatorToken.kind)) comparisons.push(n.getText(source));
      ts.forEachChild(n, visit);
    };
    visit(fn);
    expect(comparisons).toEqual(["left.length !== right.length"]);
  });

  it.each([
    ["protocol/pkce.ts", "verifierMatches", "constantTimeEqual"],
    ["protocol/grant-tokens.ts", "tokenMatches", "constantTimeEqual"],
    ["protocol/grant-tokens.ts", "refreshGenerationOf", "constantTimeEqual"],
    ["protocol/grants.ts", "checkGrantToken", "tokenMatches"],
    ["protocol/grants.ts", "rotateRefreshToken", "constantTimeEqual"],
    ["protocol/grants.ts", "grantOwningToken", "constantTimeEqual"],
    ["endpoints/token-verification.ts", "tokenToCheck", "constantTimeEqual"],
    ["owner/password.ts", "verifyPassword", "timingSafeEqual"],
    ["owner/password.ts", "verifyPassword", "bcrypt.compare"],
  ])("%s %s checks its secret with %s", async (file, name, primitive) => {
    const source = await parse(file);
    expect(callsIn(functionNamed(source, name), source)).toContain(primitive);
  });
});

// ---------------------------------------------------------------------------------------
// Watching the primitive at run time

describe("timing: the constant-time primitive is what runs", () => {
  beforeEach(() => {
    spies.timingSafeEqual.length = 0;
    spies.constantTimeEqual.length = 0;
  });

  it("constantTimeEqual calls timingSafeEqual for equal, different and differently long inputs alike", () => {
    const a = secretHash("a");
    expect(constantTimeEqual(a, a)).toBe(true);
    expect(constantTimeEqual(a, secretHash("b"))).toBe(false);
    expect(constantTimeEqual(a, `${a}x`)).toBe(false);
    expect(constantTimeEqual("", a)).toBe(false);
    expect(spies.timingSafeEqual).toHaveLength(4);
  });

  it("a PKCE verifier is checked through constantTimeEqual, against the stored challenge", () => {
    const verifier = "v".repeat(43);
    expect(verifierMatches(verifier, s256(verifier))).toBe(true);
    expect(verifierMatches("w".repeat(43), s256(verifier))).toBe(false);
    expect(spies.constantTimeEqual).toEqual([
      [s256(verifier), s256(verifier)],
      [s256("w".repeat(43)), s256(verifier)],
    ]);
  });

  it("an access or refresh token is checked through constantTimeEqual, by its hash", () => {
    const token = newGrantToken("access", newGrantId());
    expect(tokenMatches(token, secretHash(token))).toBe(true);
    expect(tokenMatches(`${token.slice(0, -1)}A`, secretHash(token))).toBe(token.endsWith("A"));
    expect(spies.constantTimeEqual.map(([, stored]) => stored)).toEqual([secretHash(token), secretHash(token)]);
  });

  it("a password (scrypt) is checked through timingSafeEqual", async () => {
    const hash = parsePasswordHash(await hashPassword("hunter2-hunter2"));
    if ("error" in hash) throw new Error(hash.error);
    expect(await verifyPassword("hunter2-hunter2", hash)).toBe(true);
    expect(await verifyPassword("hunter3-hunter3", hash)).toBe(false);
    expect(spies.timingSafeEqual).toHaveLength(2);
  });
});
