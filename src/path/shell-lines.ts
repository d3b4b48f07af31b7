/**
 * Each shell's own syntax for what the shell table (./shells.ts) writes and
 * asks: how a path is quoted, the marked PATH line, and the command a new
 * shell runs to say what `gentle-shell` is to it. Pure.
 *
 * The PATH lines
 * --------------
 * sh, bash, zsh:  export PATH="<bin>:$PATH" # gentle-shell bundled install
 *   Double quotes with `\` before `$`, backquote, `"` and `\` - the four
 *   characters POSIX double quotes give a meaning to - so spaces, quotes,
 *   `$` and any unicode in the path stay literal in every sh-family shell.
 *   History expansion (`!`) does not happen in sourced files.
 * fish:  set -gx PATH '<bin>' $PATH # gentle-shell bundled install
 *   Not `fish_add_path`: by default it stores the folder in the universal
 *   variable fish_user_paths (the fish_variables file), a second change
 *   outside our file that removing the file would not undo, and it exists
 *   only since fish 3.2. `set -gx` works in every fish, changes only this
 *   session's PATH, and puts our bin first like the sh line does. Inside fish
 *   single quotes only `\` and `'` need a backslash.
 * nu:  $env.PATH = ($env.PATH | split row (char esep) | prepend "<bin>") # ...
 *   In env.nu PATH is a string or already a list, depending on the version
 *   and on what ran before; `split row` takes either and gives a list, which
 *   nu joins again for the programs it starts. Not `use std/util "path add"`:
 *   it needs a std that older nu does not have. Inside nu's double quotes
 *   `\` and `"` need a backslash; nothing else is expanded (only `$"..."`
 *   interpolates).
 * PowerShell:  $env:PATH = '<bin>' + [IO.Path]::PathSeparator + $env:PATH # ...
 *   Single quotes expand nothing; a quote inside is doubled, and PowerShell
 *   counts the typographic single quotes (U+2018 to U+201B) as quotes too,
 *   so they are doubled as well.
 *
 * The lookups
 * -----------
 * Each prints the begin marker, then the path of the file `name` runs (links
 * not followed), or the kind of command it is when that is not a file (an
 * alias, a function), or nothing, then the end marker. The markers are plain
 * words (letters, digits, `_`), so no quoting is needed for them.
 */

export const PATH_MARKER = "# gentle-shell bundled install";

/** `text` for inside POSIX double quotes: `\` before the four characters they give a meaning to ($, backquote, ", \). */
export function inDoubleQuotes(text: string): string {
  return text.replace(/[$`"\\]/g, "\\$&");
}

/** A word in POSIX single quotes (a quote inside closes, escapes and reopens them). */
export function posixQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A word in fish's single quotes: only `\` and `'` need a backslash. */
export function fishQuote(text: string): string {
  return `'${text.replace(/[\\']/g, "\\$&")}'`;
}

/** A word in nu's double quotes: `\` and `"` need a backslash. */
export function nuQuote(text: string): string {
  return `"${text.replace(/[\\"]/g, "\\$&")}"`;
}

/** A word in PowerShell's single quotes: each quote, the typographic ones too, doubled. */
export function pwshQuote(text: string): string {
  return `'${text.replace(/['\u2018\u2019\u201a\u201b]/g, "$&$&")}'`;
}

/**
 * A path as the user is shown it (`~/...` under the home) in PowerShell's
 * double quotes, with `$HOME` for the tilde: a backtick before each
 * character those quotes give a meaning to (`$`, the backtick, and the
 * double quotes, typographic ones too).
 */
export function pwshHomeQuote(shown: string): string {
  const backticked = (text: string) => text.replace(/[$`"\u201c\u201d\u201e]/g, "`$&");
  return shown.startsWith("~/") ? `"$HOME/${backticked(shown.slice(2))}"` : `"${backticked(shown)}"`;
}

/** The line for sh, bash and zsh. */
export function posixLine(bin: string): string {
  return `export PATH="${inDoubleQuotes(bin)}:$PATH" ${PATH_MARKER}`;
}

/** The line for fish. */
export function fishLine(bin: string): string {
  return `set -gx PATH ${fishQuote(bin)} $PATH ${PATH_MARKER}`;
}

/** The line for nu's env.nu. */
export function nuLine(bin: string): string {
  return `$env.PATH = ($env.PATH | split row (char esep) | prepend ${nuQuote(bin)}) ${PATH_MARKER}`;
}

/** The line for PowerShell's profile. */
export function pwshLine(bin: string): string {
  return `$env:PATH = ${pwshQuote(bin)} + [IO.Path]::PathSeparator + $env:PATH ${PATH_MARKER}`;
}

/** sh family and fish: `command -v` prints a file's path, an alias's definition or a function's name. */
export function posixLookup(name: string, begin: string, end: string): string {
  return `echo ${begin}; command -v ${name}; echo ${end}`;
}

/** nu: `which` gives a table whose first row is what runs; its path for a file, else its type ("alias", "custom"). */
export function nuLookup(name: string, begin: string, end: string): string {
  return [
    `print ${begin}`,
    // An `extern` of that name (our completions, when a user sources them) is listed first, as "external" with its .nu file for a path: not what runs.
    `let found = (which -a ${name} | where {|r| not ($r.type == "external" and ($r.path | str ends-with ".nu"))})`,
    `if ($found | is-empty) { print "" } else if ($found.0.type == "external") { print $found.0.path } else { print $found.0.type }`,
    `print ${end}`,
  ].join("; ");
}

/** PowerShell: Get-Command's first match; an Application's Source is its file, anything else is named by its CommandType. */
export function pwshLookup(name: string, begin: string, end: string): string {
  return [
    `Write-Output ${begin}`,
    `$found = Get-Command -Name ${name} -ErrorAction Ignore | Select-Object -First 1`,
    `if ($null -eq $found) { Write-Output '' } elseif ($found.CommandType -eq 'Application') { Write-Output $found.Source } else { Write-Output ([string]$found.CommandType).ToLower() }`,
    `Write-Output ${end}`,
  ].join("; ");
}

/** True when `content` holds `line` as a whole line (a CR before the newline is tolerated). */
export function holdsLine(content: string, line: string): boolean {
  return content.split("\n").some((l) => l === line || l === line + "\r");
}

/** Lines carrying our marker (for naming a line the user edited). */
export function markedLines(content: string): string[] {
  return content
    .split("\n")
    .map((l) => l.replace(/\r$/, ""))
    .filter((l) => l.includes(PATH_MARKER));
}
