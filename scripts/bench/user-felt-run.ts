// (10), the measuring half: run in a process of its own (user-felt.ts starts it) that trusts the
// production Blobs double's CA from its start (NODE_EXTRA_CA_CERTS is read only then). The
// handlers' store talks to the double (test/helpers/production-blobs.ts), which adds the same
// latency to every storage request: what each step waits for is its round trips in sequence.
//   node --import tsx scripts/bench/user-felt-run.ts <latencyMs> <runs>   prints JSON
import { performance } from "node:perf_hooks";
import { describeProblems } from "../../netlify/lib/platform/config.ts";
import { REQUEST_CHECK_PATH } from "../../netlify/lib/pages/paths.ts";
import { resourceServer } from "../../netlify/lib/resource/index.ts";
import { startProductionBlobs } from "../../test/helpers/production-blobs.ts";
import {
  approveRequest,
  authorizationParams,
  authorizationRequest,
  BASE,
  bearer,
  CLIENT_ID,
  introspectionRequest,
  pkcePair,
  post,
  REDIRECT_URI,
  refreshForm,
} from "../../test/helpers/requests.ts";
import { realClock, testRuntime } from "../../test/helpers/runtime.ts";
import { approvedApp, benchEnv, endpoints, operations, sessionCookie, type Bench } from "./calls.ts";
import { roundTrips } from "./critical-path.ts";
import { IP, USER_AGENT } from "./settings.ts";
import type { UserFeltSamples, UserFeltStep } from "./user-felt.ts";

const SCOPES = ["profile", "email", "create"];
const SAME_ORIGIN = { Origin: BASE, "Sec-Fetch-Site": "same-origin" };

const deferred: Promise<unknown>[] = [];
const platform = { waitUntil: (work: Promise<unknown>) => void deferred.push(work) };
const caller = { ip: IP, userAgent: USER_AGENT, ...platform };

async function expectStatus(response: Response, status: number, what: string): Promise<Response> {
  if (response.status !== status)
    throw new Error(`${what}: expected ${status}, got ${response.status} ${await response.text()}`);
  return response;
}

async function jsonField(response: Response, what: string, field: string): Promise<string> {
  const body = (await (await expectStatus(response, 200, what)).json()) as Record<string, unknown>;
  if (typeof body[field] !== "string" && body[field] !== true)
    throw new Error(`${what}: no ${field} in ${JSON.stringify(body)}`);
  return String(body[field]);
}

async function measure(latencyMs: number, runs: number): Promise<UserFeltSamples> {
  const blobs = await startProductionBlobs({ latencyMs });
  try {
    const env = await benchEnv();
    const rt = await testRuntime({
      env,
      storeName: "bench-user-felt",
      clock: realClock(),
      connection: blobs.connection,
      wrapStore: (store) => operations.wrap(store),
    });
    if (!rt.config.ok) throw new Error(describeProblems(rt.config.problems));
    const b: Bench = { rt, config: rt.config.config };
    await approvedApp(b, SCOPES);
    const cookie = await sessionCookie(b);
    const resource = resourceServer({ env: {}, store: rt.store, now: rt.now });
    const samples: UserFeltSamples = { latencyMs, runs, steps: {} };

    /** One step: timed, its round trips and operations counted; what it handed over for after
     * its answer is finished before the next step, untimed (on Netlify it does not hold the answer). */
    const step = async <T>(name: UserFeltStep, run: () => Promise<T>, timedRun: boolean): Promise<T> => {
      operations.reset();
      const start = performance.now();
      const result = await run();
      const elapsed = performance.now() - start;
      const trace = operations.settled();
      await Promise.allSettled(deferred.splice(0));
      if (timedRun) {
        const s = (samples.steps[name] ??= { ms: [], roundTrips: [], operations: [] });
        s.ms.push(elapsed);
        s.roundTrips.push(roundTrips(trace));
        s.operations.push(trace.length);
      }
      return result;
    };

    // The first run warms the connections and the code; it is not kept.
    for (let run = 0; run <= runs; run++) {
      const timedRun = run > 0;
      const pkce = pkcePair();
      const params = authorizationParams({
        state: `felt-${run}`,
        code_challenge: pkce.challenge,
        scope: SCOPES.join(" "),
      });
      const request = await step(
        "GET /auth",
        async () => {
          const response = await expectStatus(
            await endpoints.authorize(authorizationRequest(params), rt, platform),
            303,
            "GET /auth",
          );
          const location = response.headers.get("location") ?? "";
          const token = new URLSearchParams(location.split("#")[1] ?? "").get("request");
          if (!token) throw new Error(`GET /auth: no request in ${location}`);
          return token;
        },
        timedRun,
      );
      await step(
        "POST /auth/approve/check",
        async () => {
          await jsonField(
            await endpoints.approve(post(REQUEST_CHECK_PATH, { request }, SAME_ORIGIN), rt, caller),
            "request check",
            "usable",
          );
        },
        timedRun,
      );
      const code = await step(
        "POST /auth/approve (session)",
        async () => {
          const response = await expectStatus(
            await endpoints.approve(
              approveRequest(request, {
                password: null,
                scopes: SCOPES,
                userAgent: USER_AGENT,
                headers: { Cookie: cookie },
              }),
              rt,
              caller,
            ),
            302,
            "approve",
          );
          const found = new URL(response.headers.get("location") ?? "", BASE).searchParams.get("code");
          if (!found) throw new Error("approve: no code");
          return found;
        },
        timedRun,
      );
      const redemption = {
        grant_type: "authorization_code",
        code,
        client_id: CLIENT_ID,
        redirect_uri: REDIRECT_URI,
        code_verifier: pkce.verifier,
      };
      const tokens = await step(
        "POST /token (code)",
        async () => {
          const response = await endpoints.token(post("/token", redemption), rt, platform);
          const body = (await (await expectStatus(response, 200, "POST /token")).json()) as {
            access_token?: string;
            refresh_token?: string;
          };
          if (!body.access_token || !body.refresh_token) throw new Error(`POST /token: ${JSON.stringify(body)}`);
          return { access: body.access_token, refresh: body.refresh_token };
        },
        timedRun,
      );
      // The checks present the token the refresh handed out (the one a host would hold now).
      const access = await step(
        "POST /token (refresh)",
        async () =>
          jsonField(
            await endpoints.token(post("/token", refreshForm(tokens.refresh)), rt, platform),
            "refresh",
            "access_token",
          ),
        timedRun,
      );
      await step(
        "POST /introspect",
        async () =>
          jsonField(await endpoints.introspect(introspectionRequest(access), rt, platform), "introspect", "active"),
        timedRun,
      );
      await step(
        "resource API requireToken",
        async () => {
          const answer = await resource.requireToken(new Request(`${BASE}/micropub`, { headers: bearer(access) }), {
            scope: "create",
            resource: "/micropub",
          });
          if (answer instanceof Response) throw new Error(`requireToken refused the token: ${answer.status}`);
        },
        timedRun,
      );
    }
    return samples;
  } finally {
    await blobs.stop();
  }
}

const [latency, runs] = process.argv.slice(2).map(Number);
if (!latency || !runs) throw new Error("usage: user-felt-run.ts <latencyMs> <runs>");
process.stdout.write(`${JSON.stringify(await measure(latency, runs))}\n`);
process.exit(0);
