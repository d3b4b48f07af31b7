/**
 * The PATH entry's words for the user (spec: "PATH", "Manual"): a path as a
 * shell argument, the command that loads a startup file into the current
 * terminal, and the sentence asking the user to add the line by hand. Pure.
 */
import { tildify } from "../core/layout";
import { SHELLS, type ShellName } from "./shells";

/** A path as a shell argument: `~/...` when that needs no quoting, else single-quoted. */
export function shellArg(path: string, home: string): string {
  const shown = tildify(path, home);
  if (/^[A-Za-z0-9_./~+,@%=-]+$/.test(shown)) return shown;
  return `'${path.replace(/'/g, `'\\''`)}'`;
}

/** The command that loads `file` (a file of `shell`) into the current terminal. */
export function reloadCommand(shell: ShellName, file: string, home: string): string {
  return SHELLS[shell].reload(shellArg(file, home));
}

/** One sentence: add this line by hand. */
export function addLineSentence(file: string, line: string, home: string): string {
  return `Add this line to ${tildify(file, home)}, then open a new terminal: ${line}`;
}
