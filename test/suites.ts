// Which test files run in which suite (docs/tests.md). `npm test` runs the quick end-to-end files
// (each starts one `netlify dev` and runs its cases against it); every other file under test/e2e
// builds and serves a whole blog or package (npm pack, netlify build, Eleventy, Hugo, npm start,
// two servers side by side) and runs in `npm run test:e2e`. So a new file dropped into test/e2e
// runs in test:e2e until it is named here.
export const QUICK_E2E = [
  "test/e2e/docs-commands.e2e.test.ts",
  "test/e2e/local-atomicity.e2e.test.ts",
  "test/e2e/mcp-sign-in.e2e.test.ts",
  "test/e2e/real-clients.e2e.test.ts",
  "test/e2e/sign-in.e2e.test.ts",
  "test/e2e/tokens.e2e.test.ts",
];

// What `npm run test:production-store` runs against the production Blobs double (test/
// vitest.production-store.config.ts): every file whose guarantees rest on conditional writes.
// They run in `npm test` too, against the local server; docs/tests.md says why these. Not the
// connection log's: it is written after the answer and gives up a step after three collisions,
// so on production's optimistic writes a burst of steps of one client may lose one (its test
// then fails now and then on the double, never locally, where writers of a key take turns).
export const PRODUCTION_STORE = [
  "test/integration/store.test.ts",
  "test/integration/records.test.ts",
  "test/integration/token-endpoint.test.ts",
  "test/integration/token-verification.test.ts",
  "test/integration/app-summaries.test.ts",
  "test/integration/account.test.ts",
  "test/integration/housekeeping.test.ts",
  "test/integration/passkeys.test.ts",
  "test/integration/owner-sessions.test.ts",
  "test/integration/sign-in-event-slots.test.ts",
  "test/integration/alerts.test.ts",
  "test/integration/app-approvals.test.ts",
  "test/integration/app-burst.test.ts",
  "test/integration/app-scopes.test.ts",
  "test/adversarial/redemption-faults.test.ts",
  "test/adversarial/attacks/codes.test.ts",
  "test/adversarial/attacks/refresh-reuse.test.ts",
  "test/adversarial/attacks/revoke-refresh-race.test.ts",
  "test/adversarial/attacks/session-races.test.ts",
  "test/adversarial/attacks/password-guessing.test.ts",
  "test/adversarial/attacks/sign-in-burst.test.ts",
  "test/adversarial/attacks/history-flood.test.ts",
  "test/adversarial/attacks/owner-lockout.test.ts",
];
