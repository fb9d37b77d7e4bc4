// The owner's passkeys: one small record holds them all (one owner, a handful of keys), so the
// sign-in page learns whether any exist, and a sign-in finds its key, with one read.
import type { PasskeyView } from "../pages/account-view.ts";
import { RECORDS } from "../platform/records.ts";
import type { KeyValueStore } from "../platform/store.ts";
import { collisionPause } from "../platform/collision-pause.ts";
import { MAX_PASSKEYS } from "../core/policy.ts";

export interface PasskeyRecord {
  /** The credential id, base64url. */
  id: string;
  name: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  /** The authenticator's signature counter (0 for most passkeys, which do not count). */
  counter: number;
  transports?: string[];
  deviceType: "singleDevice" | "multiDevice";
  backedUp: boolean;
  createdAt: number;
  lastUsedAt?: number;
}

interface PasskeyList {
  kind: "passkeys";
  items: PasskeyRecord[];
}

const PASSKEYS_KEY = RECORDS.passkeys.key();
const MAX_NAME_LENGTH = 64;

export async function listPasskeys(store: KeyValueStore): Promise<PasskeyRecord[]> {
  const list = await store.get<PasskeyList>(PASSKEYS_KEY);
  return list?.kind === "passkeys" && Array.isArray(list.items) ? list.items : [];
}

/** A name as the owner typed it, without control characters, trimmed and bounded; null if empty. */
export function passkeyName(raw: string): string | null {
  const name = raw
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .trim()
    .slice(0, MAX_NAME_LENGTH);
  return name === "" ? null : name;
}

/** Read, change, write back only if nobody wrote in between, retrying a few times: two devices
 * registering at once must not lose a key. */
async function updatePasskeys(
  store: KeyValueStore,
  change: (items: PasskeyRecord[]) => PasskeyRecord[] | null,
): Promise<boolean> {
  for (let attempt = 0; attempt < 3; attempt++) {
    if (attempt > 0) await collisionPause(attempt);
    const { value, version } = await store.getVersioned<PasskeyList>(PASSKEYS_KEY);
    const next = change(value?.kind === "passkeys" ? value.items : []);
    if (next === null) return false;
    if (await store.setIfUnchanged(PASSKEYS_KEY, { kind: "passkeys", items: next } satisfies PasskeyList, version))
      return true;
  }
  throw new Error("the passkey list kept changing during an update");
}

/** False when the limit is reached or the credential is already registered. */
export async function addPasskey(store: KeyValueStore, passkey: PasskeyRecord): Promise<boolean> {
  return updatePasskeys(store, (items) =>
    items.length >= MAX_PASSKEYS || items.some((item) => item.id === passkey.id) ? null : [...items, passkey],
  );
}

export async function renamePasskey(store: KeyValueStore, id: string, name: string): Promise<boolean> {
  return updatePasskeys(store, (items) =>
    items.some((item) => item.id === id) ? items.map((item) => (item.id === id ? { ...item, name } : item)) : null,
  );
}

export async function removePasskey(store: KeyValueStore, id: string): Promise<PasskeyRecord | null> {
  let removed: PasskeyRecord | null = null;
  const done = await updatePasskeys(store, (items) => {
    removed = items.find((item) => item.id === id) ?? null;
    return removed ? items.filter((item) => item !== removed) : null;
  });
  return done ? removed : null;
}

/** The counter only moves forward: two sign-ins verified at the same moment may be written
 * in either order, and a lower counter stored last would let a cloned key's answer pass. */
export async function recordPasskeyUse(store: KeyValueStore, id: string, counter: number, now: number): Promise<void> {
  await updatePasskeys(store, (items) =>
    items.map((item) =>
      item.id === id
        ? { ...item, counter: Math.max(item.counter, counter), lastUsedAt: Math.max(item.lastUsedAt ?? 0, now) }
        : item,
    ),
  );
}

export function passkeyView(passkey: PasskeyRecord): PasskeyView {
  const { id, name, createdAt, backedUp, lastUsedAt } = passkey;
  return { id, name, createdAt, backedUp, ...(lastUsedAt !== undefined ? { lastUsedAt } : {}) };
}

/** Whether the password may sign in: PASSWORD_LOGIN=off takes effect only once a passkey
 * exists, so that the owner can never lock themselves out. */
export function passwordLoginAllowed(passwordLogin: boolean, passkeys: readonly PasskeyRecord[]): boolean {
  return passwordLogin || passkeys.length === 0;
}
