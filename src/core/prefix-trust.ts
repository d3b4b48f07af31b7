/**
 * Which entries of an existing prefix Gentle Shell may trust (issue 39, 1;
 * spec: "The prefix folder", "Ownership rules"). Pure: a classification of
 * an entry's lstat facts (its type, owner and mode), which install/claim.ts
 * gathers for every entry of the prefix before anything is downloaded or
 * switched.
 *
 *   - Every entry must be this user's. Gentle Shell runs what the prefix
 *     holds (our Node, Pi, npm's global config) as the user, so one entry of
 *     another user's, at any depth, refuses the whole install, changing
 *     nothing. Root's entries too, unless we are root: a user cannot write
 *     them, so the install would fail on them later anyway.
 *   - The prefix itself gets the mode the plan prints and a new one is
 *     created with, 0700: nothing below it is then reachable by another user.
 *   - Any other file or folder of ours loses group and other write access
 *     (go-w, as the spec's prefix rule): an entry another user could write
 *     through a descriptor or hard link taken while it was open to them is
 *     closed too. Inside the agent home, the user's Pi home that the
 *     installer never writes, modes stay as the user keeps them: only
 *     owners are checked there.
 *   - A link is never followed and its own mode means nothing; a link of ours
 *     stays (each later step refuses one where it would write through it).
 *     Only the prefix and the agent home themselves must be real folders.
 *   - Without POSIX owners (Windows, `self` null) only that last rule
 *     applies: owners and modes there are the private folder's protected
 *     DACL, which keeps other accounts out (install/windows-private/rule.ts).
 */

export interface EntryFacts {
  kind: "folder" | "file" | "link" | "other";
  /** The owner's uid (lstat's, never a link's target's). */
  uid: number;
  /** lstat's mode; only its permission bits are read. */
  mode: number;
}

/** Where an entry stands: the prefix itself, the agent home itself, inside the agent home, anywhere else inside the prefix. */
export type EntryPlace = "prefix" | "agent" | "agent-content" | "inside";

export type EntryVerdict =
  | { action: "keep" }
  | { action: "tighten"; mode: number }
  | { action: "refuse"; why: "owner"; owner: number }
  | { action: "refuse"; why: "link" | "not-folder" };

/** The prefix's mode (the plan's "mode 0700"), and a new agent home's. */
export const PRIVATE_FOLDER_MODE = 0o700;

const KEEP: EntryVerdict = { action: "keep" };

/** What the claim does with one entry, `self` being our uid (null: no POSIX owners). */
export function judgeEntry(facts: EntryFacts, self: number | null, place: EntryPlace): EntryVerdict {
  const top = place === "prefix" || place === "agent";
  if (top && facts.kind === "link") return { action: "refuse", why: "link" };
  if (top && facts.kind !== "folder") return { action: "refuse", why: "not-folder" };
  if (self === null) return KEEP;
  if (facts.uid !== self) return { action: "refuse", why: "owner", owner: facts.uid };
  if (facts.kind === "link" || facts.kind === "other" || place === "agent-content") return KEEP;
  const bits = facts.mode & 0o7777;
  if (place === "prefix") return bits === PRIVATE_FOLDER_MODE ? KEEP : { action: "tighten", mode: PRIVATE_FOLDER_MODE };
  return bits & 0o022 ? { action: "tighten", mode: bits & 0o755 } : KEEP;
}

/** Whether the claim looks inside the entry: a real folder it does not refuse. */
export function looksInside(facts: EntryFacts, verdict: EntryVerdict): boolean {
  return facts.kind === "folder" && verdict.action !== "refuse";
}

/** The place of a child of an entry at `place`. */
export function childPlace(place: EntryPlace, isAgent: boolean): EntryPlace {
  if (place === "agent" || place === "agent-content") return "agent-content";
  return isAgent ? "agent" : "inside";
}

/**
 * The one sentence a refused claim stops with. `shown` is the entry as the
 * user sees it (the home as ~); `others` counts the further refused entries.
 */
export function refusalSentence(shown: string, verdict: Extract<EntryVerdict, { action: "refuse" }>, others = 0): string {
  if (verdict.why === "owner") {
    const more = others ? ` (${others} more ${others === 1 ? "entry" : "entries"} of the Gentle Shell folder too)` : "";
    return `${shown} belongs to another user (uid ${verdict.owner})${more}, so Gentle Shell cannot trust it and nothing was changed; remove it (as that user, or with sudo) and run the installer again.`;
  }
  const what = verdict.why === "link" ? "is a link; it must be a real folder" : "is not a folder";
  return `${shown} ${what}. Nothing was changed: move it away, then run the installer again.`;
}

/** The claim step's detail: what it found, and what it changed. */
export function claimSummary(created: boolean, prefixMode: number | null, tightened: number): string {
  if (created) return "created";
  const changes: string[] = [];
  if (prefixMode !== null) changes.push(`mode 0${prefixMode.toString(8)} set`);
  if (tightened) changes.push(`group/other write access removed from ${tightened} ${tightened === 1 ? "entry" : "entries"} inside`);
  return changes.length ? `already there; ${changes.join(", ")}` : "already there";
}
