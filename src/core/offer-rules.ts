/**
 * The startup update offer's decisions (spec: "Startup update offer"). Pure:
 * whether a launch may check at all, what the launcher's config says, and
 * what a key press means. The terminal and network live in
 * src/engine/startup-offer.ts.
 */
import { RELEASE_HOME, RELEASE_TAG_PREFIX } from "./source";
import { withSetting, type LauncherConfig } from "./launcher-settings";
import { compareVersions, isExactVersion } from "./versions";
import { underCi } from "./terminal-style";

export type Env = Record<string, string | undefined>;

/** A launch that may check: in a terminal, not under CI, online as Pi reads it, outside a Gentle Shell session, plain startup or --continue/--resume. */
export function offerAllowed(launch: { offline: boolean; insideSession: boolean; plainSession: boolean }, env: Env, terminal: boolean): boolean {
  if (!terminal) return false;
  // A CI service's run (issue 41): a terminal there is nobody's, and its output is a log.
  if (underCi(env)) return false;
  if (env.GENTLE_SHELL_STARTUP_HANDOFF) return false;
  if (launch.offline) return false;
  // Inside a Gentle Shell session (a subagent, the agent's shell): never prompt.
  if (launch.insideSession) return false;
  return launch.plainSession;
}

/** Offer `latest` only when it is a newer exact release the user did not skip. */
export function shouldOffer(current: string, latest: unknown, config: LauncherConfig): latest is string {
  if (!isExactVersion(latest) || compareVersions(latest, current) <= 0) return false;
  return config.settings.skippedStartupRelease !== latest;
}

/** `notify` (the update policy): the offer's one line, on stderr, instead of the panel; nothing is installed. */
export function notifyLine(current: string, latest: string): string {
  return `gentle-shell: Gentle Shell ${latest} is available (you have ${current}); run gentle-shell upgrade to install it.`;
}

/** Skip this version: only skippedStartupRelease changes, everything else is kept. */
export function skipRelease(config: LauncherConfig, version: string): string {
  return withSetting(config, "skippedStartupRelease", version);
}

export const CHOICES = ["update", "not-now", "skip"] as const;
export type Choice = (typeof CHOICES)[number];
export type KeyResult = { selected: number } | { confirm: Choice } | { cancel: true } | null;

/** One key press (a chunk of raw terminal input) against the selected row (0-2). */
export function keyPress(data: string, selected: number): KeyResult {
  if (data === "\u0003") return { cancel: true };
  if (data === "\u0004") return { confirm: "not-now" };
  if (data === "\u001b") return { confirm: "not-now" };
  if (data === "\r" || data === "\n") return { confirm: CHOICES[selected]! };
  if (data === "\u001b[A" || data === "\u001bOA" || data === "k") return { selected: (selected + 2) % 3 };
  if (data === "\u001b[B" || data === "\u001bOB" || data === "j") return { selected: (selected + 1) % 3 };
  if (data === "1" || data === "2" || data === "3") return { selected: Number(data) - 1 };
  return null;
}

export function releaseNotesUrl(version: string): string {
  return `https://github.com/${RELEASE_HOME}/releases/tag/${RELEASE_TAG_PREFIX}${version}`;
}

/** The panel's lines (without colour): current and available versions, the notes link, the three choices. */
export function panelLines(current: string, latest: string, selected: number): string[] {
  const labels = ["Update now (gentle-shell upgrade)", "Not now", "Skip this version"];
  return [
    `Gentle Shell ${latest} is available (you have ${current}).`,
    `Release notes: ${releaseNotesUrl(latest)}`,
    "",
    ...labels.map((label, i) => `${i === selected ? "❯" : " "} ${i + 1}. ${label}`),
    "",
    "Arrows or 1-3 to choose, Enter to confirm, Esc for not now, Ctrl+C to cancel.",
  ];
}
