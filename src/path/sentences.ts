/**
 * The PATH entry's words for the user (spec: "PATH", "Manual"): a path as a
 * shell argument, the command that loads a startup file into the current
 * terminal, and the sentence asking the user to add the line by hand. Pure.
 */
import { tildify } from "../core/layout";
import { SHELLS, type ShellName } from "./shells";

/** A path as an argument of `shell`: `~/...` when that needs no quoting (every shell of the table expands it), else quoted as that shell quotes. */
export function shellArg(shell: ShellName, path: string, home: string): string {
  const shown = tildify(path, home);
  if (/^[A-Za-z0-9_./~+,@%=-]+$/.test(shown)) return shown;
  return SHELLS[shell].quote(path);
}

/** The command that loads `file` (a file of `shell`) into the current terminal. */
export function reloadCommand(shell: ShellName, file: string, home: string): string {
  return SHELLS[shell].reload(shellArg(shell, file, home));
}

/** One sentence: add this line by hand. */
export function addLineSentence(file: string, line: string, home: string): string {
  return `Add this line to ${tildify(file, home)}, then open a new terminal: ${line}`;
}
