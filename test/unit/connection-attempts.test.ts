import { describe, expect, it } from "vitest";
import {
  attemptLinks,
  mergeTiers,
  NO_ATTEMPTS,
  withStep,
  type AttemptTiers,
  type StepEvent,
} from "../../netlify/lib/owner/connection-attempts.ts";

const CLIENT = "https://app.example/";
const p = attemptLinks.challenge(CLIENT, "challenge");
const c = attemptLinks.code("ic_code");
const step = (s: Omit<StepEvent, "clientId">): StepEvent => ({ clientId: CLIENT, ...s });

describe("an attempt's steps, written after their answers in any order", () => {
  it("makes one attempt of a code refused at /token that was logged before the approval that issued it", () => {
    let tiers: AttemptTiers = NO_ATTEMPTS;
    tiers = withStep(tiers, step({ step: "document", ok: true, at: 1, links: [p] }));
    tiers = withStep(tiers, step({ step: "consent", ok: true, at: 1, links: [p] }));
    // The app redeemed its code (with the wrong verifier) before the approval's log landed.
    tiers = withStep(tiers, step({ step: "code", ok: false, at: 3, error: "invalid_grant", links: [c] }));
    tiers = withStep(tiers, step({ step: "approved", ok: true, at: 2, links: [p, c] }));
    expect(tiers.anonymous).toEqual([]);
    expect(tiers.attempts).toHaveLength(1);
    expect(tiers.attempts[0]!.steps.map((s) => [s.step, s.ok])).toEqual([
      ["document", true],
      ["consent", true],
      ["approved", true],
      ["code", false],
    ]);
  });

  it("orders steps of the same moment as the protocol runs them", () => {
    let tiers: AttemptTiers = NO_ATTEMPTS;
    tiers = withStep(tiers, step({ step: "code", ok: true, at: 5, links: [c] }));
    tiers = withStep(tiers, step({ step: "consent", ok: true, at: 5, links: [p] }));
    tiers = withStep(tiers, step({ step: "approved", ok: true, at: 5, links: [p, c] }));
    expect(tiers.attempts[0]!.steps.map((s) => s.step)).toEqual(["consent", "approved", "code"]);
  });

  it("never lets a step anyone can cause pull a signed-in attempt's steps by the challenge", () => {
    let tiers: AttemptTiers = NO_ATTEMPTS;
    tiers = withStep(tiers, step({ step: "approved", ok: true, at: 1, links: [p, c] }));
    tiers = withStep(tiers, step({ step: "consent", ok: true, at: 2, links: [p] }));
    expect(tiers.attempts[0]!.steps.map((s) => s.step)).toEqual(["approved"]);
    expect(tiers.anonymous[0]!.steps.map((s) => s.step)).toEqual(["consent"]);
  });

  it("joins a code refused at /token, logged in the client's slot while the approval moved its log, to the approved attempt", () => {
    // The slot: the sign-in page's steps, then the refused code (before the approval's log landed).
    let slot: AttemptTiers = NO_ATTEMPTS;
    slot = withStep(slot, step({ step: "consent", ok: true, at: 1, links: [p] }));
    slot = withStep(slot, step({ step: "code", ok: false, at: 3, error: "invalid_grant", links: [c] }));
    // The approved record: the slot's earlier steps taken along, then the approval.
    let approved = withStep(NO_ATTEMPTS, step({ step: "consent", ok: true, at: 1, links: [p] }));
    approved = withStep(approved, step({ step: "approved", ok: true, at: 2, links: [p, c] }));
    const merged = mergeTiers(approved, slot);
    expect(merged.anonymous).toEqual([]);
    expect(merged.attempts.map((a) => a.steps.map((s) => s.step))).toEqual([["consent", "approved", "code"]]);
  });
});
