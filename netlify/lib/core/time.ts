// Durations in milliseconds, and the day a moment falls in (UTC days since the epoch).
export const MINUTE = 60 * 1000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export const dayOf = (at: number): number => Math.floor(at / DAY);
