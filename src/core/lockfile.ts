/**
 * The packages a release lockfile names, read so an offline bundle can carry
 * them in a form that can be checked: each registry tarball, whose sha512
 * the signed lockfile records as its integrity. Pure.
 *
 * pnpm writes lockfile v9's `packages:` section in one regular shape:
 *
 *     packages:
 *
 *       '@scope/name@1.2.3':
 *         resolution: {integrity: sha512-...}
 *         cpu: [x64]
 *         os: [linux]
 *         libc: [glibc]
 *
 * Anything else (a tarball or git resolution, no integrity, another
 * lockfile version) is refused by name: such a package cannot be verified
 * offline against the lockfile.
 */
import type { Target } from "../pins/types";

export interface LockedPackage {
  name: string;
  version: string;
  /** sha512-<base64>, the registry tarball's integrity. */
  integrity: string;
  os: string[] | null;
  cpu: string[] | null;
  libc: string[] | null;
}

function unquote(text: string): string {
  const t = text.trim();
  return (t.startsWith("'") && t.endsWith("'")) || (t.startsWith('"') && t.endsWith('"')) ? t.slice(1, -1) : t;
}

function flowList(text: string): string[] | null {
  const m = /^\[(.*)\]$/.exec(text.trim());
  if (!m) return null;
  return m[1]!.trim() === "" ? [] : m[1]!.split(",").map(unquote);
}

export function lockedPackages(lockfile: string): LockedPackage[] {
  const text = lockfile.replace(/\r\n/g, "\n");
  if (!/^lockfileVersion: '9\.\d+'$/m.test(text)) throw new Error("the release lockfile is not a pnpm lockfile version 9");
  const start = text.search(/^packages:\n/m);
  if (start < 0) return [];
  const lines = text.slice(start).split("\n").slice(1);
  const out: LockedPackage[] = [];
  let current: (Partial<LockedPackage> & { key: string }) | null = null;
  const finish = () => {
    if (!current) return;
    if (!current.integrity) throw new Error(`${current.key} in the release lockfile has no registry integrity, so it cannot be verified offline`);
    const { key: _key, ...pkg } = current;
    out.push(pkg as LockedPackage);
    current = null;
  };
  for (const line of lines) {
    if (line !== "" && !line.startsWith(" ")) break;
    const key = /^ {2}(\S.*):$/.exec(line);
    if (key) {
      finish();
      const id = unquote(key[1]!);
      const at = id.lastIndexOf("@");
      const name = id.slice(0, at);
      const version = id.slice(at + 1);
      if (at <= 0 || !/^(@[a-z0-9._~-]+\/)?[a-z0-9._~-]+$/i.test(name) || !/^[0-9A-Za-z.+-]+$/.test(version)) {
        throw new Error(`${id} in the release lockfile is not a registry package name and version`);
      }
      current = { key: id, name, version, os: null, cpu: null, libc: null };
      continue;
    }
    const field = /^ {4}(resolution|os|cpu|libc): (.*)$/.exec(line);
    if (!field || !current) continue;
    const [, name, value] = field as unknown as [string, string, string];
    if (name === "resolution") {
      const m = /^\{integrity: (sha512-[A-Za-z0-9+/]+={0,2})\}$/.exec(value.trim());
      if (!m) throw new Error(`${current.key} in the release lockfile is not resolved from the registry with an integrity, so it cannot be verified offline`);
      current.integrity = m[1]!;
    } else {
      const list = flowList(value);
      if (!list) throw new Error(`${current.key} in the release lockfile has a ${name} field this installer does not read`);
      current[name as "os" | "cpu" | "libc"] = list;
    }
  }
  finish();
  return out;
}

function allows(list: string[] | null, value: string): boolean {
  if (!list || list.length === 0) return true;
  const denied = list.filter((v) => v.startsWith("!")).map((v) => v.slice(1));
  const wanted = list.filter((v) => !v.startsWith("!"));
  if (denied.includes(value)) return false;
  return wanted.length === 0 || wanted.includes(value);
}

/** Whether a package can be installed on `target` (npm's os/cpu/libc rules; Linux takes glibc and musl packages). */
export function packageFitsTarget(pkg: LockedPackage, target: Target): boolean {
  const [os, cpu] = target.split("-") as [string, string];
  const nodeOs = os === "win" ? "win32" : os;
  if (!allows(pkg.os, nodeOs) || !allows(pkg.cpu, cpu)) return false;
  if (pkg.libc?.length && nodeOs !== "linux") return false;
  return true;
}

/** The packages any of `targets` needs, each once. */
export function packagesForTargets(packages: readonly LockedPackage[], targets: readonly Target[]): LockedPackage[] {
  return packages.filter((p) => targets.some((t) => packageFitsTarget(p, t)));
}

/** The registry's path of a package's tarball: `<name>/-/<name without scope>-<version>.tgz`. */
export function tarballPath(pkg: Pick<LockedPackage, "name" | "version">): string {
  const base = pkg.name.startsWith("@") ? pkg.name.slice(pkg.name.indexOf("/") + 1) : pkg.name;
  return `${pkg.name}/-/${base}-${pkg.version}.tgz`;
}
