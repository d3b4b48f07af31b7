/**
 * The proxy variables as Node 24's built-in proxy support reads them
 * (http.setGlobalProxyFromEnv, which io/env-proxy.ts calls at the start of
 * each entry): http_proxy, else HTTP_PROXY, for http: requests; https_proxy,
 * else HTTPS_PROXY, for https: (on Windows one name in any case). Pure.
 *
 * Node refuses a proxy URL it cannot use by throwing an error whose message
 * is the URL as written, password and all; started with --use-env-proxy it
 * even dies with that error's stack before any code of ours runs. So each
 * value is read here first, by the rules Node 24.21.0 applies (checked
 * against it: a line break, a URL the WHATWG parser refuses, user
 * information that does not percent-decode, a scheme other than http:,
 * https:, socks5: or socks:, anything after the host and port), and one that
 * breaks one of them gets one sentence that shows it masked.
 */
import type { Env } from "./environment";
import { envKey } from "./environment";
import type { Platform } from "./layout";
import { redactUrl } from "./secrets";

/** The names Node reads, lower case first (Node's parseProxyUrl: `env.http_proxy || env.HTTP_PROXY`). */
const READ = [
  ["http_proxy", "HTTP_PROXY"],
  ["https_proxy", "HTTPS_PROXY"],
] as const;

/** Schemes Node's proxy support takes (undici's ProxyAgent; node:http ignores the socks ones). */
const SCHEMES = new Set(["http:", "https:", "socks5:", "socks:"]);

const PERCENT_HINT = "percent-encode each of its special characters (# as %23, / as %2F, ? as %3F, \\ as %5C, @ as %40, % as %25)";

/** The proxy variables Node uses on this platform: the name each value was found under, and the value; none when no proxy is named. */
export function proxyVariables(env: Readonly<Env>, platform: Platform): { name: string; value: string }[] {
  const found: { name: string; value: string }[] = [];
  for (const names of READ) {
    for (const name of names) {
      const key = envKey(env, name, platform);
      const value = key === undefined ? undefined : env[key];
      if (key === undefined || !value) continue;
      found.push({ name: platform === "win32" ? names[1] : key, value });
      break;
    }
  }
  return found;
}

/** Whether a proxy variable Node reads is set (not empty): only then is anything loaded for proxies. */
export function namesAProxy(env: Readonly<Env>, platform: Platform): boolean {
  return proxyVariables(env, platform).length > 0;
}

/**
 * The one sentence for the first proxy variable Node would refuse (what is
 * wrong, what to do), its value masked; null when Node can use them all.
 */
export function proxyVariableProblem(env: Readonly<Env>, platform: Platform): string | null {
  for (const { name, value } of proxyVariables(env, platform)) {
    const why = refusal(value);
    if (why) return `${name} is not a proxy URL Node can use: ${why(name)}`;
  }
  return null;
}

function refusal(value: string): ((name: string) => string) | null {
  if (/[\r\n]/.test(value)) return (name) => `it holds a line break; write the proxy's URL on one line in ${name}`;
  if (value.trim() === "") return (name) => `it is blank; write the proxy as http://host:port in ${name}, or unset it`;
  const shown = shownProxy(value);
  // No scheme (127.0.0.1:3128, proxy.corp:3128: the parser takes a host name for one).
  const noScheme = (name: string) => `${shown} names no scheme; write the proxy as http://host:port in ${name}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    if (!/^[a-z][a-z0-9+.-]*:/i.test(value)) return noScheme;
    return (name) => `${shown} is no URL with a valid host and port, as when a password holds #, /, ? or \\; ${PERCENT_HINT} in ${name}`;
  }
  if (!decodes(url.username) || !decodes(url.password)) {
    return (name) => `the user name or password in ${shown} holds a % that starts no percent-encoded character; ${PERCENT_HINT} in ${name}`;
  }
  if (!SCHEMES.has(url.protocol)) {
    if (!value.includes("://")) return noScheme;
    return (name) => `${shown} starts with ${url.protocol}, not http:// or https://; write the proxy as http://host:port in ${name}`;
  }
  if ((url.pathname !== "" && url.pathname !== "/") || url.search !== "" || url.hash !== "") {
    // An @ after the host: a password's character ended the host part early.
    if (value.includes("@")) {
      return (name) => `${shown} holds more than the proxy's host and port, as when a password holds #, /, ? or \\; ${PERCENT_HINT} in ${name}`;
    }
    return (name) => `${shown} holds more than the proxy's host and port; write the proxy as http://host:port, with no path, ? or #, in ${name}`;
  }
  return null;
}

function decodes(part: string): boolean {
  try {
    decodeURIComponent(part);
    return true;
  } catch {
    return false;
  }
}

/**
 * A proxy's URL for a sentence. A proxy URL is a scheme and an address, so
 * an `@` anywhere in it ends user information, whatever the parser made of
 * the characters before it (`http://carol:12/RET@host` parses as host carol,
 * port 12 and a path): everything up to the last `@` is masked. Without an
 * `@`, redactUrl masks it.
 */
export function shownProxy(value: string): string {
  const at = value.lastIndexOf("@");
  if (at < 0) return redactUrl(value);
  const scheme = /^[a-z][a-z0-9+.-]*:[/\\]{2}/i.exec(value)?.[0] ?? "";
  return redactUrl(`${scheme}***@${value.slice(at + 1)}`);
}
