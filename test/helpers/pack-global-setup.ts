import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { packInto } from "./blog.ts";

declare module "vitest" {
  export interface ProvidedContext {
    packedTarball: string;
  }
}

// `npm pack` of this checkout once for the whole run (it builds netlify/resource/ first, which
// takes seconds), instead of once per blog test file; pack-setup-file.ts hands the tarball to each
// file, where test/helpers/blog.ts's packedTarball() finds it.
export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), "indieauth-pack-"));
  project.provide("packedTarball", packInto(dir));
  return () => rmSync(dir, { recursive: true, force: true });
}
