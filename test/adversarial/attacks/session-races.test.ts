// Attack catalogue: races on the owner's records, ordered deterministically by a store that
// holds one operation until the test lets it go (test/helpers/held-store.ts): the moment a
// real race would interleave two requests is made to happen every time.
import { describe, expect, it } from "vitest";
import { listPasskeys } from "../../../netlify/lib/owner/passkey-records.ts";
import { RECORDS } from "../../../netlify/lib/platform/records.ts";
import { fastRuntime } from "../../helpers/attack-kit.ts";
import { consoleGet, consolePost, consoleSignIn } from "../../helpers/console.ts";
import { heldStore } from "../../helpers/held-store.ts";
import { passkeyAnswer, passkeySignIn, withPasskey } from "../../helpers/passkey-owner.ts";

const MINUTE = 60 * 1000;

/** The session id a cookie names (its JWT's `sid`). */
function sessionIdOf(cookie: string): string {
  return (JSON.parse(Buffer.from(cookie.split(".")[1]!, "base64url").toString()) as { sid: string }).sid;
}

describe("sign out cannot be undone by a request arriving at the same moment", () => {
  it("a stolen cookie's request that read the session just before Sign out never brings it back", async () => {
    const rt = await fastRuntime();
    const cookie = await consoleSignIn(rt, { remember: true });
    const sessionKey = RECORDS.session.key(sessionIdOf(cookie));
    // Late enough that the request records when the session was last seen.
    rt.clock.advance(6 * MINUTE);
    const held = heldStore(rt.store);
    const thief = { ...rt, store: held.store };

    // The thief's request reads the live session record, and is held right there...
    const read = held.hold("get", sessionKey, "after");
    const stolen = consoleGet(thief, { cookie });
    await read.reached;
    // ...while the owner signs out, to completion.
    expect((await consolePost(rt, "/sign-out", {}, { cookie })).status).toBe(200);
    expect(await rt.store.get(sessionKey)).toBeNull();
    // Then the thief's request goes on (it may still be answered: it began before the sign-out).
    read.release();
    await stolen;

    expect(await rt.store.get(sessionKey)).toBeNull();
    expect((await consoleGet(rt, { cookie })).status).toBe(401);
    rt.clock.advance(6 * MINUTE);
    expect((await consoleGet(rt, { cookie })).status).toBe(401);
  });

  it("the console still shows when each device was last seen", async () => {
    const rt = await fastRuntime();
    const cookie = await consoleSignIn(rt, { remember: true });
    rt.clock.advance(6 * MINUTE);
    const { devices } = (await (await consoleGet(rt, { cookie })).json()) as {
      devices: { lastSeenAt: number; createdAt: number }[];
    };
    expect(devices[0]!.lastSeenAt - devices[0]!.createdAt).toBe(6 * MINUTE);
  });
});

describe("the passkey counter never moves backwards", () => {
  it("two sign-ins verified at once, recorded in the other order, keep the higher counter: a clone's lower one is then refused", async () => {
    const rt = await fastRuntime();
    const { authenticator } = await withPasskey(rt);
    expect((await passkeySignIn(rt, await passkeyAnswer(rt, authenticator))).status).toBe(200);
    expect((await listPasskeys(rt.store))[0]!.counter).toBe(1);

    // B (counter 3) is verified against the stored 1, then held before it records its use...
    const held = heldStore(rt.store);
    const beforeRecording = held.hold("getVersioned", RECORDS.passkeys.key(), "before");
    const b = passkeySignIn({ ...rt, store: held.store }, await passkeyAnswer(rt, authenticator, { counter: 3 }));
    await beforeRecording.reached;
    // ...while A (counter 5), verified against the same stored 1, records first.
    expect((await passkeySignIn(rt, await passkeyAnswer(rt, authenticator, { counter: 5 }))).status).toBe(200);
    beforeRecording.release();
    expect((await b).status).toBe(200);

    expect((await listPasskeys(rt.store))[0]!.counter).toBe(5);
    // An answer with counter 4 (a cloned authenticator behind the real one) is refused.
    expect((await passkeySignIn(rt, await passkeyAnswer(rt, authenticator, { counter: 4 }))).status).toBe(401);
  });
});
