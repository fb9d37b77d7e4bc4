// The approve gate's pointer rules (approve-gate.ts). The buttons turn on when the pointer
// really moves from somewhere other than them (a page appearing under a still pointer reports
// no movement, and a hand resting on a button's spot does not count), or when a press begins
// somewhere other than them (a click storm at a button's spot never turns them on). They turn
// off again at a press on a button that is part of the same burst of presses as the one before
// it, or at the very spot of the press that turned them on (nothing having moved: the page
// may have shifted under a still pointer).
import type { Gate, Point } from "./approve-gate.ts";

// One burst: presses closer than this in time and space. A person who means to press a button
// that has just turned on sees it change (a visual reaction takes 200 to 250 ms at the least)
// and then aims at it (a movement of 100 ms and more), so their press comes half a second or
// more after the one before; the presses of a storm or a double-click come 80 to 250 ms apart,
// and systems take 500 ms as the longest double-click. In space, a resting hand, or a thumb
// tapping again, wobbles by a few pixels (a fingertip's contact is some 40 px across, and its
// centre moves between taps), while reaching a button's middle from beside it is more than
// half its height (20 px and more here). So 500 ms and 16 px: a press within both of the one
// before is the same hand at the same spot, not a reach.
const BURST_MS = 500;
const BURST_PX = 16;

interface Press extends Point {
  at: number;
}

const samePoint = (a: Point, b: Point): boolean => a.x === b.x && a.y === b.y;
const near = (a: Point, b: Point): boolean => Math.hypot(a.x - b.x, a.y - b.y) <= BURST_PX;

export function watchPointer(gate: Gate): void {
  /** Where a trusted press began outside the buttons on the settled page, until it ends. */
  let pressStart: Point | null = null;
  /** The last trusted press on this page. */
  let lastPress: Press | null = null;
  /** Where the pointer was last seen on this page. */
  let lastPoint: Point | null = null;

  // Listened to on the window, in the capture phase, before anything on the page.
  const listen = <K extends keyof WindowEventMap>(type: K, handler: (event: WindowEventMap[K]) => void): void =>
    window.addEventListener(type, handler, { capture: true });
  listen("pointermove", (event) => {
    const to = { x: event.clientX, y: event.clientY };
    // Where it came from: the last position seen here, else what the browser reports.
    const movedFrom =
      lastPoint ??
      (event.movementX !== 0 || event.movementY !== 0
        ? { x: to.x - event.movementX, y: to.y - event.movementY }
        : null);
    lastPoint = to;
    if (gate.armed() || !event.isTrusted || !gate.settled()) return;
    if (movedFrom === null || samePoint(movedFrom, to) || gate.buttonAt(movedFrom)) return;
    // A movement presses nothing: on at once.
    gate.open(null);
  });
  listen("pointerdown", (event) => {
    const at = { x: event.clientX, y: event.clientY };
    const now = performance.now();
    const onButton = gate.buttonAt(at) !== null;
    lastPoint = at;
    const burst = lastPress !== null && now - lastPress.at <= BURST_MS && near(lastPress, at);
    const armedAt = gate.armedAt();
    if (gate.armed() && onButton && (burst || (armedAt !== null && samePoint(armedAt, at)))) gate.lock();
    if (event.isTrusted) lastPress = { ...at, at: now };
    pressStart = event.isTrusted && gate.settled() && !onButton ? at : null;
  });
  for (const type of ["pointerup", "pointercancel"] as const) {
    listen(type, () => {
      if (pressStart !== null && !gate.armed()) gate.openAfterThisEvent(pressStart);
      pressStart = null;
    });
  }
}
