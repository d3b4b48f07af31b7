/**
 * The repair command doctor's lines and the launcher's sentences point at,
 * written once (issue 48, item 2: doctor's repair commands), so a sentence
 * that names the repair cannot drift from the command that does it.
 */

/** Our two programs that run doctor: the launcher, and the installer (which works when the launcher cannot start). */
export type DoctorProgram = "gentle-shell" | "gentle-shell-setup";

/** `<program> doctor --fix`, with `--source <source>` when the repair is to download from there. */
export function doctorFix(program: DoctorProgram, source?: string): string {
  return `${program} doctor --fix${source === undefined ? "" : ` --source ${source}`}`;
}
