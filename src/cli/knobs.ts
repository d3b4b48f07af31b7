/**
 * Every install flag has an environment knob (issue 14, CLI conventions),
 * one row each of KNOBS below (issue 48: the flags, the help lines and the
 * docs' table are made from it). A flag given on the command line beats its knob; a
 * knob's value is checked as the flag's is, and a bad one is refused in one
 * sentence naming the variable (exit 2); a knob whose flag is given is not
 * read. Pure.
 */
import type { Env } from "../core/environment";
import { EXIT, UserError } from "../core/errors";
import { parseSource } from "../core/source";
import { isExactVersion } from "../core/versions";

export interface KnobFlags {
  source?: string;
  release?: string;
  quiet?: boolean;
  "modify-path"?: boolean;
}

export interface Settled {
  source: string | undefined;
  /** Where `source` came from, for the sentences about it. */
  sourceFrom: "--source" | "GENTLE_SHELL_SOURCE";
  /** An exact version, or undefined for the latest. */
  release: string | undefined;
  quiet: boolean;
  noModifyPath: boolean;
}

/**
 * One install knob: its flag, its variable, what the variable takes and the
 * line `--help` gives it. The help block (KNOB_LINES), the suffix each flag's
 * description ends in, and the docs' knob table (test/unit/cli-knobs.test.ts
 * holds docs/fleets-and-ci.md to it) are made from these rows; `settle` reads
 * them in the same order.
 */
export interface Knob {
  flag: keyof KnobFlags;
  alias?: string;
  variable: string;
  /** A value the flag's check reads, or a yes/no switch that, when on, gives the flag `on`. */
  kind: "value" | "switch";
  on?: boolean;
  /** The help line's two halves: the variable as set, and the flag it stands for. */
  sample: string;
  as: string;
}

export const KNOBS: readonly Knob[] = [
  { flag: "source", variable: "GENTLE_SHELL_SOURCE", kind: "value", sample: "GENTLE_SHELL_SOURCE=<url or folder>", as: "as --source" },
  {
    flag: "release",
    variable: "GENTLE_SHELL_RELEASE",
    kind: "value",
    sample: "GENTLE_SHELL_RELEASE=<version>",
    as: "as --release (an exact version, or latest)",
  },
  {
    flag: "modify-path",
    variable: "GENTLE_SHELL_NO_MODIFY_PATH",
    kind: "switch",
    on: false,
    sample: "GENTLE_SHELL_NO_MODIFY_PATH=1",
    as: "as --no-modify-path",
  },
  { flag: "quiet", alias: "q", variable: "GENTLE_SHELL_QUIET", kind: "switch", on: true, sample: "GENTLE_SHELL_QUIET=1", as: "as --quiet" },
];

function knob(flag: keyof KnobFlags): Knob {
  return KNOBS.find((k) => k.flag === flag)!;
}

/** The environment lines of a command's --help. */
export function knobLines(): string[] {
  return KNOBS.map((k) => `  ${k.sample.padEnd(37)} ${k.as}`);
}

/** A flag's description with its knob named: "... (or GENTLE_SHELL_RELEASE)", "... (--no-modify-path or GENTLE_SHELL_NO_MODIFY_PATH=1 to skip)". */
export function withKnob(flag: keyof KnobFlags, description: string): string {
  const k = knob(flag);
  if (k.kind === "value") return `${description} (or ${k.variable})`;
  return k.on === false ? `${description} (--no-${k.flag} or ${k.sample} to skip)` : `${description} (or ${k.sample})`;
}

/** Whether `raw` (the command's own arguments) gives `--name`, `--no-name` or an alias, in any form. */
export function gives(raw: readonly string[], name: string, alias?: string): boolean {
  const end = raw.indexOf("--");
  const own = end < 0 ? raw : raw.slice(0, end);
  return own.some(
    (a) =>
      a === `--${name}` || a === `--no-${name}` || a.startsWith(`--${name}=`) || a.startsWith(`--no-${name}=`) || (alias !== undefined && a === `-${alias}`),
  );
}

/** A yes/no knob: 1 or true, 0 or false (or empty: unset). */
export function knobSwitch(env: Env, name: string): boolean | undefined {
  const value = env[name];
  if (value === undefined || value === "") return undefined;
  if (/^(1|true)$/i.test(value)) return true;
  if (/^(0|false)$/i.test(value)) return false;
  throw new UserError(`${name} takes 1 (or true) or 0 (or false), not ${JSON.stringify(value)}; nothing was changed`, EXIT.usage);
}

/** The settled options of install, migrate and bundle: each flag as given, else its knob, each checked. */
export function settle(args: KnobFlags, raw: readonly string[], env: Env): Settled {
  const fromFlag = (k: Knob) => gives(raw, k.flag, k.alias);
  const text = (k: Knob) =>
    (fromFlag(k) ? args[k.flag] : env[k.variable] === undefined || env[k.variable] === "" ? undefined : env[k.variable]) as string | undefined;
  const on = (k: Knob) => (fromFlag(k) ? args[k.flag] === k.on : knobSwitch(env, k.variable) === true);
  const sourceFrom = fromFlag(knob("source")) ? "--source" : "GENTLE_SHELL_SOURCE";
  const source = text(knob("source"));
  checkSource(source, sourceFrom);
  const release = checkRelease(text(knob("release")), fromFlag(knob("release")) ? "--release" : "GENTLE_SHELL_RELEASE");
  const quiet = on(knob("quiet"));
  // Only a command with --modify-path (install, migrate; citty gives it its default) reads its knob.
  const noModifyPath = "modify-path" in args && on(knob("modify-path"));
  return { source, sourceFrom, release, quiet, noModifyPath };
}

/**
 * --source is checked before anything is printed or asked: a URL with credentials is refused, never shown.
 * `from` names where the value came from: the flag, or its environment knob.
 */
export function checkSource(source: string | undefined, from = "--source"): void {
  try {
    parseSource(source, "");
  } catch (error) {
    const message = error instanceof TypeError ? `${from} is neither a URL nor a folder` : (error as Error).message.replace("a --source URL", `a ${from} URL`);
    throw new UserError(`${message}; nothing was changed`, EXIT.usage);
  }
}

/** --release: an exact version, or `latest` (the same as leaving it out); anything else is refused before any step. */
export function checkRelease(release: string | undefined, from = "--release"): string | undefined {
  if (release === undefined || release === "latest") return undefined;
  if (!isExactVersion(release)) {
    throw new UserError(`${from} takes an exact Gentle Shell version such as 4.1.0, or latest; not ${JSON.stringify(release)}`, EXIT.usage);
  }
  return release;
}
