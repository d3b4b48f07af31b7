/**
 * Every install flag has an environment knob (issue 14, CLI conventions):
 * GENTLE_SHELL_SOURCE, GENTLE_SHELL_RELEASE, GENTLE_SHELL_NO_MODIFY_PATH and
 * GENTLE_SHELL_QUIET. A flag given on the command line beats its knob; a
 * knob's value is checked as the flag's is, and a bad one is refused in one
 * sentence naming the variable (exit 2); a knob whose flag is given is not
 * read. Pure.
 */
import type { Env } from "../core/environment";
import { EXIT, UserError } from "../core/errors";
import { checkRelease, checkSource } from "./install-run";

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
  const knob = (name: string) => (env[name] === undefined || env[name] === "" ? undefined : env[name]);
  const fromFlag = (flag: string, alias?: string) => gives(raw, flag, alias);
  const sourceFrom = fromFlag("source") ? "--source" : "GENTLE_SHELL_SOURCE";
  const source = sourceFrom === "--source" ? args.source : knob("GENTLE_SHELL_SOURCE");
  checkSource(source, sourceFrom);
  const release = fromFlag("release") ? checkRelease(args.release) : checkRelease(knob("GENTLE_SHELL_RELEASE"), "GENTLE_SHELL_RELEASE");
  const quiet = fromFlag("quiet", "q") ? args.quiet === true : knobSwitch(env, "GENTLE_SHELL_QUIET") === true;
  // Only a command with --modify-path (install, migrate; citty gives it its default) reads its knob.
  const path = "modify-path" in args;
  const noModifyPath = !path ? false : fromFlag("modify-path") ? args["modify-path"] === false : knobSwitch(env, "GENTLE_SHELL_NO_MODIFY_PATH") === true;
  return { source, sourceFrom, release, quiet, noModifyPath };
}
