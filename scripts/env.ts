// Loads .env for local runs. Variables already in the environment win over the file.
import { existsSync } from "node:fs";

export const ENV_FILE = ".env";

export function loadEnvFile(path = ENV_FILE): boolean {
  if (!existsSync(path)) return false;
  process.loadEnvFile(path);
  return true;
}
