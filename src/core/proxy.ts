/**
 * The proxy the environment names for a URL, as Node's proxy support reads
 * it (./proxy-env.ts): HTTP_PROXY for http:, HTTPS_PROXY for https: (either
 * case), and none when NO_PROXY lists the host (`*`, the host itself, or a domain it
 * ends in, with or without a leading dot; an entry's `:port` must match).
 * Only used to say which way a failed request went, never to route one.
 */
import type { Env } from "./environment";

export function proxyFor(url: string, env: Env): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const scheme = parsed.protocol === "https:" ? "HTTPS_PROXY" : parsed.protocol === "http:" ? "HTTP_PROXY" : null;
  if (!scheme) return null;
  const proxy = env[scheme] || env[scheme.toLowerCase()];
  if (!proxy) return null;
  const host = parsed.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const port = parsed.port || (parsed.protocol === "https:" ? "443" : "80");
  for (const raw of (env.NO_PROXY ?? env.no_proxy ?? "").split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === "*") return null;
    const [name, entryPort] = entry.startsWith("[") ? [entry.slice(1, entry.indexOf("]")), entry.split("]:")[1]] : entry.split(":");
    if (entryPort && entryPort !== port) continue;
    const domain = name!.replace(/^\*?\./, "");
    if (host === domain || host.endsWith(`.${domain}`)) return null;
  }
  return proxy;
}
