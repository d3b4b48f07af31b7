/**
 * The PATH entry's receipt (spec: "PATH", "Persisted receipt" and "Reading
 * it back"): what an applied change records, the JSON text of
 * `<prefix>/path-entry.json`, and which receipts read back are this
 * prefix's own. Pure; `receipt-file.ts` reads and writes the file.
 */
import type { Env } from "../core/environment";
import type { Platform } from "../core/layout";
import { tildify } from "../core/layout";
import { localBinLink, profileFiles, SHELLS, USER_PATH_KEY, USER_PATH_NAME } from "./shells";
import { userPathKey } from "./user-path";

export type PathReceipt =
  | { schema: 1; kind: "link"; applied: boolean; path: string; target: string }
  | { schema: 1; kind: "profile"; applied: boolean; path: string; line: string; create: boolean; separator: "" | "\n" }
  | { schema: 1; kind: "registry"; applied: boolean; key: string; name: string; entry: string };

/** What taking a receipt's change back found (removePathEntry). */
export type RemoveResult =
  /** Our entry is gone; `deleted` when the file we created went with it. */
  | { status: "removed"; deleted?: boolean }
  /** A receipt with applied: false: it was there before us, and stays. */
  | { status: "not-applied" }
  /** Nothing of ours is there any more. */
  | { status: "absent" }
  /** Something that is no longer exactly ours: kept and named. */
  | { status: "kept"; path: string; line?: string; reason: string };

/** The JSON text of path-entry.json: schema, kind and that kind's fields (only applied receipts are written). */
export function receiptJson(receipt: PathReceipt): string {
  const { applied: _applied, ...fields } = receipt;
  return JSON.stringify(fields, null, 2) + "\n";
}

export interface ReceiptContext {
  home: string;
  env: Env;
  platform: Platform;
  bin: string;
  launcher: string;
}

export type ReceiptCheck =
  | { status: "valid"; receipt: PathReceipt }
  | { status: "invalid"; reason: string /** What the user removes by hand, when the receipt names something. */; manual: string | null };

const KIND_FIELDS: Record<string, string[]> = {
  link: ["schema", "kind", "path", "target"],
  profile: ["schema", "kind", "path", "line", "create", "separator"],
  registry: ["schema", "kind", "key", "name", "entry"],
};

/**
 * Accepts only what this prefix writes (spec PATH, "Reading it back"):
 * our link to our launcher, our exact line for our bin in a file
 * pathEntryPlan can choose for this user (the fish line only in the fish
 * file), or our bin in HKCU\Environment Path.
 */
export function checkReceipt(text: string, ctx: ReceiptContext): ReceiptCheck {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { status: "invalid", reason: "path-entry.json is not JSON", manual: null };
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return { status: "invalid", reason: "path-entry.json is not an object", manual: null };
  }
  const r = data as Record<string, unknown>;
  const fields = typeof r.kind === "string" ? KIND_FIELDS[r.kind] : undefined;
  if (r.schema !== 1 || !fields) return { status: "invalid", reason: "path-entry.json has an unknown schema or kind", manual: null };
  const keys = Object.keys(r);
  if (keys.length !== fields.length || !fields.every((f) => keys.includes(f))) {
    return { status: "invalid", reason: `path-entry.json's ${r.kind} fields are not ${fields.join(", ")}`, manual: null };
  }
  const str = (v: unknown): v is string => typeof v === "string";
  const show = (p: string) => tildify(p, ctx.home);

  if (r.kind === "link") {
    if (!str(r.path) || !str(r.target)) return { status: "invalid", reason: "path-entry.json's link fields are not text", manual: null };
    const manual = `the link ${show(r.path)}`;
    if (ctx.platform === "win32") return { status: "invalid", reason: "a link receipt on Windows", manual };
    if (r.path !== localBinLink(ctx.home)) return { status: "invalid", reason: `the installer never links ${show(r.path)}`, manual };
    if (r.target !== ctx.launcher) return { status: "invalid", reason: `the link's target is not this prefix's launcher`, manual };
    return { status: "valid", receipt: { schema: 1, kind: "link", applied: true, path: r.path, target: r.target } };
  }

  if (r.kind === "profile") {
    if (!str(r.path) || !str(r.line) || typeof r.create !== "boolean" || (r.separator !== "" && r.separator !== "\n")) {
      return { status: "invalid", reason: "path-entry.json's profile fields are malformed", manual: null };
    }
    const manual = str(r.line) && r.line.length < 4096 ? `the line ${JSON.stringify(r.line)} in ${show(r.path)}` : `the marked line in ${show(r.path)}`;
    const file = profileFiles(ctx.home, ctx.env, ctx.platform).find((f) => f.path === r.path);
    if (!file) return { status: "invalid", reason: `the installer never writes ${show(r.path)} for this user`, manual };
    if (r.line !== SHELLS[file.shell].line(ctx.bin)) {
      const kind = SHELLS[file.shell].line === SHELLS.sh.line ? "" : `${file.shell} `;
      return { status: "invalid", reason: `the line is not this prefix's ${kind}line for ${show(r.path)}`, manual };
    }
    return {
      status: "valid",
      receipt: { schema: 1, kind: "profile", applied: true, path: r.path, line: r.line, create: r.create, separator: r.separator },
    };
  }

  // registry
  if (!str(r.key) || !str(r.name) || !str(r.entry)) return { status: "invalid", reason: "path-entry.json's registry fields are not text", manual: null };
  const manual = `the entry ${r.entry} in your user Path`;
  if (ctx.platform !== "win32") return { status: "invalid", reason: "a Windows Path receipt outside Windows", manual };
  if (r.key !== USER_PATH_KEY || r.name !== USER_PATH_NAME) return { status: "invalid", reason: `the installer never writes ${r.key}\\${r.name}`, manual };
  if (userPathKey(r.entry) !== userPathKey(ctx.bin)) return { status: "invalid", reason: "the entry is not this prefix's bin folder", manual };
  return { status: "valid", receipt: { schema: 1, kind: "registry", applied: true, key: r.key, name: r.name, entry: r.entry } };
}
