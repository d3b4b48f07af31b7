/**
 * `minimumReleaseAge` as the update policy reads it (issue 47, item 2): a
 * string with its unit, `90m`, `12h` or `7d`, at most 3650 days. Kept in
 * minutes. A bare number is refused: pnpm's setting of the same name is in
 * minutes and bun's in seconds, so a pasted `1440` could mean anything (it
 * used to mean four years of days). `0` alone is the one number taken, as it
 * is the same in every unit: no minimum. Pure.
 */

const UNIT_MINUTES = { m: 1, h: 60, d: 24 * 60 } as const;
const UNIT_WORDS = { m: "minute", h: "hour", d: "day" } as const;
type Unit = keyof typeof UNIT_MINUTES;

/** The longest minimum age a policy may ask for. */
export const MAX_AGE_DAYS = 3650;
const MAX_AGE_MINUTES = MAX_AGE_DAYS * UNIT_MINUTES.d;

/** Minutes, or the clause (after "<source> ") that says why the value is refused. */
export type AgeReading = { minutes: number } | { problem: string };

export function parseReleaseAge(value: unknown): AgeReading {
  if (value === 0) return { minutes: 0 };
  if (typeof value === "number") {
    const n = Number.isFinite(value) ? String(value) : JSON.stringify(value);
    return {
      problem: `sets minimumReleaseAge to ${n}, which has no unit; write it as a string with one, such as "${n}m" (minutes), "${n}h" (hours) or "${n}d" (days)`,
    };
  }
  const match = typeof value === "string" ? /^\s*(\d+(?:\.\d+)?)\s*([mhd])\s*$/i.exec(value) : null;
  if (!match) return { problem: `sets minimumReleaseAge to ${JSON.stringify(value)}, not an age with its unit such as "90m", "12h" or "7d"` };
  const minutes = Number(match[1]) * UNIT_MINUTES[match[2]!.toLowerCase() as Unit];
  if (minutes > MAX_AGE_MINUTES) return { problem: `sets minimumReleaseAge to ${JSON.stringify(value)}, more than the longest it may be, "${MAX_AGE_DAYS}d"` };
  return { minutes };
}

/** An age in words with its unit: "7 days", "12 hours", "90 minutes", "1 day". */
export function ageText(minutes: number): string {
  const unit: Unit = minutes > 0 && minutes % UNIT_MINUTES.d === 0 ? "d" : minutes > 0 && minutes % UNIT_MINUTES.h === 0 ? "h" : "m";
  const count = minutes / UNIT_MINUTES[unit];
  return `${count} ${UNIT_WORDS[unit]}${count === 1 ? "" : "s"}`;
}

/** An age as a policy file writes it: "7d", "12h", "90m". */
export function ageSetting(minutes: number): string {
  const unit: Unit = minutes > 0 && minutes % UNIT_MINUTES.d === 0 ? "d" : minutes > 0 && minutes % UNIT_MINUTES.h === 0 ? "h" : "m";
  return `${minutes / UNIT_MINUTES[unit]}${unit}`;
}
