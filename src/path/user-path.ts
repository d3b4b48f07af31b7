/**
 * The Windows user Path as text (spec: "PATH", "Registry (Windows)"): how
 * our entry is written, found, appended and taken out of the raw value of
 * HKCU\Environment Path. Pure string work; the adapter in `windows-registry.ts`
 * does the registry.
 *
 * The entry is the bin folder (with backslashes) as one more entry of the
 * user Path, appended; the value's type (REG_EXPAND_SZ) is kept, other
 * entries' `%VAR%` are never expanded, and entries are compared
 * case-insensitively without a trailing backslash, as Windows resolves them.
 */

export interface UserPathValue {
  value: string;
  type: "REG_SZ" | "REG_EXPAND_SZ";
}

/** How Windows compares Path entries: case-insensitive, `/` as `\`, no trailing backslash. */
export function userPathKey(entry: string): string {
  return entry.replace(/\//g, "\\").replace(/\\+$/, "").toLowerCase();
}

/** The entry we add for `bin`: the same folder with backslashes. */
export function userPathEntry(bin: string): string {
  return bin.replace(/\//g, "\\");
}

export function userPathHolds(value: string, entry: string): boolean {
  const key = userPathKey(entry);
  return value.split(";").some((e) => e !== "" && userPathKey(e) === key);
}

/** Appends one entry, raw: nothing else in the value changes (`%VAR%` stays as written). */
export function userPathAppend(value: string, entry: string): string {
  if (value === "") return entry;
  return value.endsWith(";") ? value + entry : `${value};${entry}`;
}

/**
 * Drops every entry equal to `entry`; the other entries are kept as written.
 * A value that ended in `;` before our append loses that `;` (the receipt's
 * fields do not record it; Windows ignores it either way).
 */
export function userPathRemove(value: string, entry: string): string {
  const key = userPathKey(entry);
  return value
    .split(";")
    .filter((e) => e === "" || userPathKey(e) !== key)
    .join(";");
}
