/**
 * The user's npm settings that reach our pnpm and npm (spec: "User npm
 * settings"). Only network, registry and authentication keys are copied, each
 * line verbatim, so `${VAR}` references stay for pnpm and npm to expand. The
 * frozen lockfile pins every version and integrity hash, so none of these
 * keys can change what is installed.
 */

const PER_HOST = new Set(["_authToken", "_auth", "username", "_password", "certfile", "keyfile"]);
const PLAIN = new Set(["registry", "proxy", "https-proxy", "noproxy", "no-proxy", "ca", "ca[]", "cafile", "strict-ssl"]);

/** The key of an ini line, unquoted; null for comments, blanks and malformed lines. */
export function npmrcKey(line: string): string | null {
  const trimmed = line.trim();
  if (trimmed === "" || trimmed.startsWith("#") || trimmed.startsWith(";")) return null;
  let key: string;
  if (trimmed.startsWith('"') || trimmed.startsWith("'")) {
    const quote = trimmed[0]!;
    const end = trimmed.indexOf(quote, 1);
    if (end === -1) return null;
    key = trimmed.slice(1, end);
    if (!/^\s*(=|$)/.test(trimmed.slice(end + 1))) return null;
  } else {
    const eq = trimmed.indexOf("=");
    key = (eq === -1 ? trimmed : trimmed.slice(0, eq)).trim();
  }
  return key;
}

export function isKeptNpmrcKey(key: string): boolean {
  if (PLAIN.has(key)) return true;
  if (/^@[^/\s:]+:registry$/.test(key)) return true;
  if (key.startsWith("//")) {
    const colon = key.lastIndexOf(":");
    return colon > 2 && PER_HOST.has(key.slice(colon + 1));
  }
  return false;
}

/** Keep only the allowed keys, verbatim; stop at the first `[section]`. */
export function filterNpmrc(text: string): string {
  const kept: string[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (/^\s*\[/.test(line)) break;
    const key = npmrcKey(line);
    if (key !== null && isKeptNpmrcKey(key)) kept.push(line);
  }
  return kept.length ? kept.join("\n") + "\n" : "";
}

/** Parse `key=value` pairs of an (already filtered) npmrc; values unquoted, not expanded. */
export function npmrcEntries(text: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\r$/, "");
    const key = npmrcKey(line);
    if (key === null) continue;
    const trimmed = line.trim();
    const eq = trimmed.startsWith('"') || trimmed.startsWith("'") ? trimmed.indexOf("=", trimmed.indexOf(trimmed[0]!, 1)) : trimmed.indexOf("=");
    let value = eq === -1 ? "true" : trimmed.slice(eq + 1).trim();
    if (/^(['"]).*\1$/.test(value)) value = value.slice(1, -1);
    out.push([key, value]);
  }
  return out;
}

/** `${NAME}` references in an npmrc: the only inherited variables pnpm keeps. */
export function npmrcVariables(text: string): string[] {
  const names = new Set<string>();
  for (const m of text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) names.add(m[1]!);
  return [...names].sort();
}

/** Expand `${NAME}` the way npm does; an unset variable stays as written. */
export function expandNpmrcValue(value: string, env: Record<string, string | undefined>): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => env[name] ?? whole);
}

/** The registry the filtered npmrc names (`${VAR}` expanded from `env`, as npm and pnpm do), normalised with a trailing slash; null if none. */
export function npmrcRegistry(text: string, env: Record<string, string | undefined> = {}): string | null {
  let registry: string | null = null;
  for (const [key, value] of npmrcEntries(text)) if (key === "registry") registry = expandNpmrcValue(value, env);
  if (!registry) return null;
  return registry.endsWith("/") ? registry : registry + "/";
}

/** The registry of `name`: its scope's `@scope:registry` in the filtered npmrc (as pnpm and npm pick it), else `fallback`. */
export function packageRegistry(text: string, name: string, fallback: string, env: Record<string, string | undefined> = {}): string {
  const scope = /^(@[^/]+)\//.exec(name)?.[1];
  let registry: string | null = null;
  if (scope) for (const [key, value] of npmrcEntries(text)) if (key === `${scope}:registry`) registry = expandNpmrcValue(value, env);
  if (!registry) return fallback;
  return registry.endsWith("/") ? registry : registry + "/";
}

/**
 * The bearer token or basic auth npm would send to `url`, from `//host/path/:_authToken`
 * style keys (longest matching path wins). Never logged.
 */
export function npmrcAuthHeader(text: string, url: string, env: Record<string, string | undefined>): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const target = `//${parsed.host}${parsed.pathname}`;
  let best: { len: number; header: string } | null = null;
  const entries = npmrcEntries(text);
  for (const [key, value] of entries) {
    if (!key.startsWith("//")) continue;
    const colon = key.lastIndexOf(":");
    const scope = key.slice(0, colon);
    const field = key.slice(colon + 1);
    const scopeWithSlash = scope.endsWith("/") ? scope : scope + "/";
    if (!target.startsWith(scopeWithSlash)) continue;
    let header: string | null = null;
    if (field === "_authToken") header = `Bearer ${expandNpmrcValue(value, env)}`;
    else if (field === "_auth") header = `Basic ${expandNpmrcValue(value, env)}`;
    else if (field === "username") {
      const pw = entries.find(([k]) => k === `${scope}:_password`);
      if (pw) {
        const password = Buffer.from(expandNpmrcValue(pw[1], env), "base64").toString("utf8");
        header = `Basic ${Buffer.from(`${expandNpmrcValue(value, env)}:${password}`).toString("base64")}`;
      }
    }
    if (header && (!best || scope.length > best.len)) best = { len: scope.length, header };
  }
  return best?.header ?? null;
}

/**
 * npm accepts a registry written with its credentials (`registry=http://user:
 * password@host/`); pnpm 11.1.1 does not: it builds its requests with Node's
 * fetch, which refuses such a URL, so pnpm fails with ERR_PNPM_META_FETCH_FAIL
 * "Request cannot be constructed from a URL that includes credentials" and
 * sends nothing (test/integration/npmrc-credentials.test.ts shows it, and the
 * rewritten form installing). So this one kind of kept line is not copied
 * verbatim, as "User npm settings" says of the others: the credentials move
 * out of the URL into the per-host `//host/path/:_auth` key both read, the
 * way npm sends them (Basic). A registry whose credentials name a `${VAR}`
 * stays as written (pnpm expands it), and an `_auth`, `_authToken` or
 * `username` the file already has for that host wins: only the URL's
 * credentials are dropped.
 */
export function registryCredentialsToAuth(text: string): string {
  if (text === "") return text;
  const lines = text.split("\n");
  const added: string[] = [];
  const hasAuth = (scope: string) =>
    npmrcEntries(text).some(([k]) => k.startsWith(scope + ":") && ["_auth", "_authToken", "username"].includes(k.slice(scope.length + 1)));
  const out = lines.map((raw) => {
    const line = raw.replace(/\r$/, "");
    const key = npmrcKey(line);
    if (key === null || !(key === "registry" || /^@[^/\s:]+:registry$/.test(key))) return raw;
    const value = npmrcEntries(line)[0]?.[1] ?? "";
    if (value.includes("${")) return raw;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return raw;
    }
    if (!url.username && !url.password) return raw;
    const decode = (s: string) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    };
    const auth = Buffer.from(`${decode(url.username)}:${decode(url.password)}`, "utf8").toString("base64");
    url.username = "";
    url.password = "";
    const bare = url.toString();
    const scope = `//${url.host}${url.pathname.endsWith("/") ? url.pathname : url.pathname + "/"}`;
    if (!hasAuth(scope) && !added.some((l) => l.startsWith(scope + ":"))) added.push(`${scope}:_auth=${auth}`);
    return `${key}=${bare}`;
  });
  const body = out.join("\n");
  if (!added.length) return body;
  return (body.endsWith("\n") ? body : body + "\n") + added.join("\n") + "\n";
}

/**
 * The certificate settings npm applies to registry requests: `ca` (or `ca[]` lines) and `cafile`.
 * `strict-ssl=false` is not read: our own requests do not follow it (docs/corporate-networks.md).
 */
export interface NpmrcTrust {
  /** Certificates written into the settings (PEM, `\n` as npm writes it), in order. */
  ca: string[];
  /** The file `cafile=` names, expanded; null when none. */
  cafile: string | null;
}

export function npmrcTrust(text: string, env: Record<string, string | undefined> = {}): NpmrcTrust {
  const trust: NpmrcTrust = { ca: [], cafile: null };
  for (const [key, value] of npmrcEntries(text)) {
    const expanded = expandNpmrcValue(value, env).trim();
    if ((key === "ca" || key === "ca[]") && expanded && expanded !== "null") trust.ca.push(expanded.replace(/\\n/g, "\n"));
    else if (key === "cafile" && expanded) trust.cafile = expanded;
  }
  return trust;
}
