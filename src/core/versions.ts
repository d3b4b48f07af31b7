/**
 * Exact versions (spec: "Release distribution assets", Exact versions).
 * A release pins gentle-pi and Pi exactly: MAJOR.MINOR.PATCH with an optional
 * pre-release. A range, a dist-tag such as `latest`, a `v` prefix or build
 * metadata (`+...`) is refused before pnpm ever runs.
 */
const EXACT = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*)?$/;

export function isExactVersion(value: unknown): value is string {
  return typeof value === "string" && EXACT.test(value);
}

export function assertExactVersion(what: string, value: unknown): string {
  if (!isExactVersion(value)) {
    throw new Error(`${what} must be an exact version such as 1.2.3 (no range, tag, "v" prefix or build metadata); got ${JSON.stringify(value)}`);
  }
  return value;
}

/** Compare two exact versions; pre-releases sort before their release. */
export function compareVersions(a: string, b: string): number {
  const [ma, pa] = splitPre(a);
  const [mb, pb] = splitPre(b);
  for (let i = 0; i < 3; i++) {
    const d = (ma[i] ?? 0) - (mb[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  if (pa === pb) return 0;
  if (pa === undefined) return 1;
  if (pb === undefined) return -1;
  const xa = pa.split(".");
  const xb = pb.split(".");
  for (let i = 0; i < Math.max(xa.length, xb.length); i++) {
    if (xa[i] === undefined) return -1;
    if (xb[i] === undefined) return 1;
    const na = /^\d+$/.test(xa[i]!) ? Number(xa[i]) : NaN;
    const nb = /^\d+$/.test(xb[i]!) ? Number(xb[i]) : NaN;
    if (!Number.isNaN(na) && !Number.isNaN(nb)) {
      if (na !== nb) return na < nb ? -1 : 1;
    } else if (Number.isNaN(na) !== Number.isNaN(nb)) {
      return Number.isNaN(na) ? 1 : -1;
    } else if (xa[i] !== xb[i]) {
      return xa[i]! < xb[i]! ? -1 : 1;
    }
  }
  return 0;
}

function splitPre(v: string): [number[], string | undefined] {
  const dash = v.indexOf("-");
  const main = dash === -1 ? v : v.slice(0, dash);
  return [main.split(".").map(Number), dash === -1 ? undefined : v.slice(dash + 1)];
}
