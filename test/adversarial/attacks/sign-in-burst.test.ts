// Right passwords sent at the same moment (the owner approving several apps at once, from
// devices not known yet) are each checked and let in: the throttle's counters and the census
// of the day they all count in are written by conditional writes that, on Netlify Blobs, meet
// one another; they retry at random moments, not in step, so none runs out of tries and is
// refused for a busy counter. And a refusal for a busy counter never says "wrong passwords".
import { describe, expect, it } from "vitest";
import { fastRuntime } from "../../helpers/attack-kit.ts";
import { approve, signedRequest } from "../../helpers/endpoints.ts";
import { authorizationParams, pkcePair } from "../../helpers/requests.ts";
import { throttled } from "../../../netlify/lib/owner/sign-in.ts";

describe("sign-ins at the same moment", () => {
  it(
    "ten right passwords at once, from ten networks, thirty times over: every one is let in",
    { timeout: 120_000 },
    async () => {
      const refused: string[] = [];
      for (let round = 0; round < 30; round++) {
        const rt = await fastRuntime();
        await Promise.all(
          Array.from({ length: 10 }, async (_, i) => {
            const request = await signedRequest(rt, authorizationParams({ code_challenge: pkcePair().challenge }));
            const response = await approve(rt, request, { ip: `198.51.${round * 10 + i}.7` });
            if (response.status !== 302 && response.status !== 303)
              refused.push(`${response.status}: ${(await response.text()).match(/<p>([^<]*)/)?.[1] ?? ""}`);
          }),
        );
      }
      expect(refused).toEqual([]);
    },
  );

  it("held back because a counter kept changing, the words say so, and no wrong password", () => {
    const error = throttled(5, "open", "password", true);
    expect(error.description).toMatch(/at the same moment/);
    expect(error.description).not.toMatch(/wrong password/i);
    expect(error.retryAfterSeconds).toBe(5);
  });
});
