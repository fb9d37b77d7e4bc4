// The fixed limits are declared once, each with its reason (netlify/lib/core/policy.ts), and
// docs/configuration.md lists exactly them: a limit changed, added or removed in one and not the
// other fails here (regenerate the doc with `npx tsx scripts/policy-table.ts --write`).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { documentedTable, policyEntries, policyTable, POLICY_FILE } from "../../scripts/policy-table.ts";

const lib = join(import.meta.dirname, "../../netlify/lib");

describe("the policy module and docs/configuration.md", () => {
  it("the doc's table is the one the module generates", () => {
    expect(documentedTable()).toBe(policyTable());
  });

  it("every limit carries its reason", () => {
    const entries = policyEntries();
    expect(entries.length).toBeGreaterThan(30);
    for (const { name, reason } of entries) expect(reason, name).not.toBe("");
  });

  it("no other module of netlify/lib declares a limit of the same name (a second literal)", () => {
    const names = new Set(policyEntries().map(({ name }) => name.split(".")[0]!));
    const files = readdirSync(lib, { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts"))
      .map((f) => join(lib, f));
    for (const file of files.filter((f) => f !== POLICY_FILE)) {
      const declared = [...readFileSync(file, "utf8").matchAll(/^(?:export )?const (\w+)\s*[:=]/gm)].map((m) => m[1]!);
      expect(
        declared.filter((name) => names.has(name)),
        file,
      ).toEqual([]);
    }
  });
});
