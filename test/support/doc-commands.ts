/**
 * The commands and links the user docs show (issue 42, part 4), read the way
 * a user reads them, for the tests that keep the docs from rotting
 * (unit/docs-links.test.ts, integration/docs-commands.test.ts). Pure apart
 * from reading the files.
 *
 * A command is a line of a fenced block marked sh, shell, bash, console or
 * powershell in README.md or docs/*.md. A line that starts with `#` is a
 * comment (a comment's second line too); a `$ ` prompt is dropped, and so is
 * a trailing ` # comment`. Leading `NAME=value` assignments are dropped
 * before the program is read.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "pathe";

export const REPO = join(import.meta.dirname, "..", "..");

/** README.md and every page of docs/, relative to the repository. */
export function docFiles(): string[] {
  const pages = readdirSync(join(REPO, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort();
  return ["README.md", ...pages.map((name) => `docs/${name}`)];
}

export type Program = "gentle-shell-setup" | "gentle-shell" | "other";

export interface DocCommand {
  /** The doc, relative to the repository, and the line (1-based). */
  file: string;
  line: number;
  /** The command as written, without a prompt or a trailing comment. */
  text: string;
  /** Its words after the assignments, quotes removed. */
  words: string[];
  program: Program;
  /** The words after the program's name. */
  args: string[];
}

const COMMAND_FENCE = /^\s*```(sh|shell|bash|console|powershell)\s*$/;
const FENCE = /^\s*```/;

/** The words of a command line: split on blanks outside quotes, the quotes removed. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let quote: string | null = null;
  let any = false;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = null;
      else word += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      any = true;
    } else if (/\s/.test(ch)) {
      if (word || any) words.push(word);
      word = "";
      any = false;
    } else word += ch;
  }
  if (word || any) words.push(word);
  return words;
}

/** Which of ours a program word names: the installer (also a bundle's `gentle-shell-setup-<target>`), the launcher, or neither. */
export function programOf(word: string): Program {
  const base = word.split(/[\\/]/).pop() ?? word;
  if (/^gentle-shell-setup(-[a-z]+-[a-z0-9]+)?(\.exe)?$/.test(base)) return "gentle-shell-setup";
  if (/^gentle-shell(\.cmd)?$/.test(base)) return "gentle-shell";
  return "other";
}

/** Every command line of the fenced command blocks of `text`. */
export function fencedCommands(file: string, text: string): DocCommand[] {
  const commands: DocCommand[] = [];
  let inCommands = false;
  let inOther = false;
  text.split("\n").forEach((raw, index) => {
    if (!inCommands && !inOther) {
      if (COMMAND_FENCE.test(raw)) inCommands = true;
      else if (FENCE.test(raw)) inOther = true;
      return;
    }
    if (FENCE.test(raw)) {
      inCommands = inOther = false;
      return;
    }
    if (inOther) return;
    let line = raw.trim().replace(/^(\$|PS>)\s+/, "");
    if (!line || line.startsWith("#")) return;
    line = line.replace(/\s+#\s.*$/, "").trim();
    const all = shellWords(line);
    let first = 0;
    while (first < all.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(all[first]!)) first++;
    const words = all.slice(first);
    const program = words.length ? programOf(words[0]!) : "other";
    commands.push({ file, line: index + 1, text: line, words, program, args: words.slice(1) });
  });
  if (inCommands || inOther) throw new Error(`${file}: a fenced block is never closed`);
  return commands;
}

/**
 * Every inline code span outside fenced blocks that starts with one of our
 * programs (`gentle-shell doctor --fix` in a sentence), as a command. A span
 * split over two lines of markdown is read as one, at its first line.
 */
export function inlineCommands(file: string, text: string): DocCommand[] {
  const commands: DocCommand[] = [];
  let fenced = false;
  const prose: { line: number; text: string }[] = [];
  text.split("\n").forEach((raw, index) => {
    if (FENCE.test(raw)) fenced = !fenced;
    else if (!fenced) prose.push({ line: index + 1, text: raw });
  });
  // Paragraphs joined, so that a span may run across a line break.
  const joined = prose.map((p) => p.text).join("\n");
  const starts: number[] = [];
  let at = 0;
  for (const p of prose) {
    starts.push(at);
    at += p.text.length + 1;
  }
  for (const m of joined.matchAll(/(?<!`)`([^`]+)`(?!`)/g)) {
    const span = m[1]!.replace(/\s+/g, " ").trim();
    const words = shellWords(span);
    if (!words.length || programOf(words[0]!) === "other" || words[0]!.includes("/")) continue;
    let k = starts.length - 1;
    while (k > 0 && starts[k]! > m.index!) k--;
    commands.push({ file, line: prose[k]!.line, text: span, words, program: programOf(words[0]!), args: words.slice(1) });
  }
  return commands;
}

/** Every inline command span of every doc. */
export function docInlineCommands(): DocCommand[] {
  return docFiles().flatMap((file) => inlineCommands(file, readFileSync(join(REPO, file), "utf8").replace(/\r\n/g, "\n")));
}

/** Every command of every doc. */
export function docCommands(): DocCommand[] {
  return docFiles().flatMap((file) => fencedCommands(file, readFileSync(join(REPO, file), "utf8").replace(/\r\n/g, "\n")));
}

/** The options a command's words use, as their help would name them: `--source=x` is `--source`; values and positionals are left out. */
export function optionsUsed(args: readonly string[]): string[] {
  return args.filter((word) => /^--?[A-Za-z]/.test(word)).map((word) => word.replace(/=.*$/, ""));
}

/** Whether a help text names `option` as a whole word (`-y, --yes`, `--release=<release>`, `[--dry-run]`). */
export function helpNames(help: string, option: string): boolean {
  const escaped = option.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(^|[\\s,\\[(|])${escaped}(?=[\\s,=\\]<)|]|$)`, "m").test(help);
}

export interface DocLink {
  file: string;
  line: number;
  /** The target as written. */
  target: string;
}

/** The links of a markdown text that are not a web address: `[text](target)`, outside fenced blocks and code spans. */
export function relativeLinks(file: string, text: string): DocLink[] {
  const links: DocLink[] = [];
  let fenced = false;
  text.split("\n").forEach((raw, index) => {
    if (FENCE.test(raw)) {
      fenced = !fenced;
      return;
    }
    if (fenced) return;
    const line = raw.replace(/`[^`]*`/g, "``");
    for (const match of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      links.push({ file, line: index + 1, target });
    }
  });
  return links;
}

/** The anchors of a markdown text's headings, as GitHub makes them (lower case, punctuation dropped, blanks to hyphens, repeats numbered). */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const raw of text.split("\n")) {
    if (FENCE.test(raw)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw);
    if (!heading) continue;
    const slug = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count ? `${slug}-${count}` : slug);
  }
  return anchors;
}

/** The text of each fenced block of `text` marked with `language` (```yaml). */
export function fencedBlocks(text: string, language: string): string[] {
  const blocks: string[] = [];
  let current: string[] | null = null;
  let other = false;
  for (const raw of text.split("\n")) {
    const open = /^\s*```(\S*)\s*$/.exec(raw);
    if (current) {
      if (FENCE.test(raw)) {
        blocks.push(current.join("\n"));
        current = null;
      } else current.push(raw);
    } else if (other) {
      if (FENCE.test(raw)) other = false;
    } else if (open) {
      if (open[1] === language) current = [];
      else other = true;
    }
  }
  return blocks;
}
