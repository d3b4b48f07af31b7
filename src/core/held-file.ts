/**
 * A file another program holds for a moment (issue 38, Survive antivirus
 * locks on Windows). Pure: which refusals are worth another try, how long to
 * wait between tries, and the one sentence said when the hold outlasts them.
 * A real-time scanner opens what was just written, and while it reads, a
 * rename, unlink or rmdir of it fails on Windows with EPERM, EACCES or EBUSY.
 * Elsewhere those codes are a real refusal (the file's modes, an immutable
 * flag), and trying again would only make the user wait for the same answer.
 */

/** How long, in all, a held file is waited for. */
export const HELD_WAIT_MS = 10_000;

const HELD_CODES: ReadonlySet<string> = new Set(["EPERM", "EACCES", "EBUSY"]);

/** Whether a refusal with `code` on `platform` may be another program's hold, so worth another try. */
export function mayBeHeld(platform: string, code: string | undefined): boolean {
  return platform === "win32" && code !== undefined && HELD_CODES.has(code);
}

/**
 * The waits between tries, in ms: short at first (a scanner's read of a small
 * file takes a few ms), doubling up to 1 s each, HELD_WAIT_MS in all.
 */
export function heldWaits(total = HELD_WAIT_MS): number[] {
  const waits: number[] = [];
  let waited = 0;
  for (let next = 25; waited < total; next = Math.min(next * 2, 1_000)) {
    const wait = Math.min(next, total - waited);
    waits.push(wait);
    waited += wait;
  }
  return waits;
}

/** What could not be done to which file: a rename from one path to another, or a removal. */
export type HeldAction = { rename: string; to: string } | { remove: string };

/** The one sentence for a file still held after every wait: which file, who holds it, what to do. */
export function heldSentence(action: HeldAction, total = HELD_WAIT_MS): string {
  const seconds = `${total / 1000} s`;
  const what =
    "rename" in action
      ? `${action.rename} could not be renamed to ${action.to} for ${seconds}: another program holds one of them`
      : `${action.remove} could not be removed for ${seconds}: another program holds it`;
  return `${what} (an antivirus scanner, for example); close that program, or wait a moment and run this again`;
}
