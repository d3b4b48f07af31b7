/**
 * The command line is strict (rustup's and uv's convention): an option a
 * command does not define, or an argument it does not take, is refused in
 * one line with exit 2 before anything runs. citty parses leniently, so this
 * reads the raw arguments against the command's own definitions. Pure.
 */
export interface ArgDef {
  type?: string;
  alias?: string | string[];
}

/** Why `raw` (the arguments after the command's name) does not fit `defs`, or null. */
export function strayArgument(defs: Record<string, ArgDef>, raw: readonly string[], command: string): string | null {
  const flags = new Map<string, "string" | "boolean">();
  let positionals = 0;
  for (const [name, def] of Object.entries(defs)) {
    if (def.type === "positional") {
      positionals++;
      continue;
    }
    const kind = def.type === "string" ? "string" : "boolean";
    flags.set(`--${name}`, kind);
    if (kind === "boolean") flags.set(`--no-${name}`, "boolean");
    for (const a of def.alias === undefined ? [] : Array.isArray(def.alias) ? def.alias : [def.alias]) flags.set(a.length === 1 ? `-${a}` : `--${a}`, kind);
  }
  flags.set("--help", "boolean");
  flags.set("-h", "boolean");
  const seen: string[] = [];
  const see = `see gentle-shell-setup ${command} --help`;
  for (let i = 0; i < raw.length; i++) {
    const arg = raw[i]!;
    if (arg === "--") {
      seen.push(...raw.slice(i + 1));
      break;
    }
    if (arg.startsWith("-") && arg !== "-") {
      const [name, value] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
      const kind = flags.get(name);
      if (!kind) return `unknown option ${name} for gentle-shell-setup ${command}; ${see}`;
      if (kind === "string" && value === undefined) {
        if (i + 1 >= raw.length || raw[i + 1]!.startsWith("--")) return `${name} needs a value; ${see}`;
        i++;
      }
      if (kind === "boolean" && value !== undefined && !/^(true|false)$/.test(value)) return `${name} takes no value; ${see}`;
      continue;
    }
    seen.push(arg);
  }
  if (seen.length > positionals) return `unexpected argument ${JSON.stringify(seen[positionals])} for gentle-shell-setup ${command}; ${see}`;
  return null;
}
