/**
 * Secrets never reach what we print. npm accepts a registry written with
 * credentials in it (`http://user:password@host/`); we send those as an
 * `Authorization: Basic` header, as npm does, and show the URL only masked.
 * Pure: no I/O.
 */

const MASK = "***";

/**
 * Query parameter names whose values are credentials: any name holding
 * token, auth, secret, passw, pwd, credential, signature, session, jwt,
 * bearer, cookie or apikey (`_authToken`, `X-Amz-Signature`,
 * `X-Amz-Credential`, `access_token`, `password` ...), and the short ones
 * signed URLs use (`sig`, `key`, `pass`, `pw`, `*_key`, `*-key`).
 */
const SECRET_PARAM = /token|auth|secret|passw|pwd|credential|signature|session|jwt|bearer|cookie|api[-_]?key|^(sig|key|pass|pw)$|[-_](key|sig)$/i;

/**
 * The one masking of what we print: every URL's `user:password@` (a
 * registry's, a proxy's, a source's), the values
 * of secret-looking query parameters, npmrc credential keys written out
 * (`_authToken=`, `_auth=`, `_password=`) and Authorization headers. Every
 * line we print goes through it (the CLI's and the engine's output, every
 * error, echoed child output); it may mask more than a secret, never less.
 *
 * The URLs in it are read as the HTTP client reads them (WHATWG URL), not
 * by the characters a password usually holds: the user information runs to
 * the LAST `@` before the host, whatever it holds (quotes, spaces, `<`, `@`),
 * and a query value to the next `&` or `#`. Where a URL ends in free text
 * cannot be known, so here a query value also ends at whitespace (the
 * client sends a space in a query as %20, and a URL we print ourselves is
 * masked whole first, with redactUrl), and the user information may take in
 * the text after the URL up to the next `/`, `?` or `#`: a path-less URL
 * followed by `x@y` in the same sentence loses that sentence to the mask.
 */
export function redactText(text: string): string {
  return masked(text, false);
}

/**
 * The masking of one whole URL (a --source, a registry, a proxy variable as
 * the user wrote it) before it goes into a sentence: as redactText, except
 * that the URL is known to end where the text does, so a password or a query
 * value with whitespace in it is masked whole. Text that is no URL (a folder,
 * "official") is masked as redactText masks it.
 */
export function redactUrl(url: string): string {
  return masked(url, true);
}

/** Whether a URL carries a user name or password, read as the HTTP client reads it (or, when it does not parse, as masking reads it). */
export function urlHasCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== "" || parsed.password !== "";
  } catch {
    return redactUrl(url) !== url;
  }
}

/** `whole`: the text is one URL, ending where the text does. */
function masked(text: string, whole: boolean): string {
  const ranges = [...userinfoRanges(text, whole), ...queryRanges(text, whole), ...npmrcAndHeaderRanges(text)];
  if (ranges.length === 0) return text;
  ranges.sort((a, b) => a[0] - b[0]);
  let out = "";
  let at = 0;
  for (let i = 0; i < ranges.length; ) {
    const from = ranges[i]![0];
    let to = ranges[i]![1];
    // Overlapping or touching ranges are one secret, masked once.
    for (i++; i < ranges.length && ranges[i]![0] <= to; i++) to = Math.max(to, ranges[i]![1]);
    out += `${text.slice(at, from)}${MASK}`;
    at = to;
  }
  return out + text.slice(at);
}

type Range = [from: number, to: number];

/** WHATWG's special schemes: after `scheme:` any run of `/` and `\` leads to the host, and `\` ends the host as `/` does. */
const SPECIAL = new Set(["http", "https", "ws", "wss", "ftp", "file"]);

/**
 * The user information of every URL in `text`, as the WHATWG parser finds
 * it: the authority runs from the slashes after the scheme to the first `/`,
 * `?`, `#` (or `\` for a special scheme), and the user information ends at
 * its last `@`. In free text, an `@` followed by whitespace or nothing ends
 * no user information (no host follows it: "as user:password@ before the
 * host" is a sentence, not a URL).
 *
 * A password holding `/`, `?`, `#` or `\` makes a URL the client refuses
 * or reads another way ("Invalid proxy URL: http://carol:SE#CRET@..."),
 * and the secret is still in it: when what the parser would take for the
 * host and port is no valid host and port, or the authority ends at `?`,
 * `#` or `\`, the mask runs on to the last `@` of the rest of the line.
 */
function userinfoRanges(text: string, whole: boolean): Range[] {
  const ranges: Range[] = [];
  // The last `@` a host may follow on the rest of a line, found once per line: many URLs on one long line do not each scan it.
  let line = { end: -1, at: -1 };
  const lastOnLine = (from: number) => {
    if (from > line.end) {
      const end = whole ? text.length : lineEndFrom(text, from);
      line = { end, at: lastHostAt(text, from, end, whole) };
    }
    return line.at >= from ? line.at : -1;
  };
  const scheme = /([a-z][a-z0-9+.-]*):/gi;
  for (let match = scheme.exec(text); match; match = scheme.exec(text)) {
    const special = SPECIAL.has(match[1]!.toLowerCase());
    let start = scheme.lastIndex;
    if (special) {
      while (text[start] === "/" || text[start] === "\\") start++;
      // "HTTP: 407" is a sentence; "http:user:pw@host" is a URL WHATWG reads.
      if (start === scheme.lastIndex && (start >= text.length || /\s/.test(text[start]!))) continue;
    } else if (text.startsWith("//", start)) start += 2;
    else continue;
    let end = start;
    while (end < text.length && !"/?#".includes(text[end]!) && !(special && text[end] === "\\")) end++;
    let at = lastHostAt(text, start, end, whole);
    const hostPort = text.slice(at < 0 ? start : at + 1, end);
    const endsOddly = end < text.length && "?#\\".includes(text[end]!);
    // In free text the URL ends at whitespace at the latest, as far as its host and port go.
    if (endsOddly || !validHostPort(whole ? hostPort : hostPort.split(/\s/, 1)[0]!)) at = Math.max(at, lastOnLine(end));
    if (at >= 0) ranges.push([start, at]);
    // A URL that starts inside this one's host part has this one's end: nothing of it is left to mask.
    scheme.lastIndex = Math.max(end, at + 1);
  }
  return ranges;
}

/** The last `@` in text[from, to) that a host may follow (in free text: not whitespace, not the end); -1 when none. */
function lastHostAt(text: string, from: number, to: number, whole: boolean): number {
  for (let i = to - 1; i >= from; i--) {
    if (text[i] !== "@") continue;
    if (whole || (i + 1 < text.length && !/\s/.test(text[i + 1]!))) return i;
  }
  return -1;
}

function lineEndFrom(text: string, from: number): number {
  let end = from;
  while (end < text.length && text[end] !== "\n" && text[end] !== "\r") end++;
  return end;
}

function validHostPort(hostPort: string): boolean {
  if (hostPort === "") return false;
  try {
    new URL(`http://${hostPort}/`);
    return true;
  } catch {
    return false;
  }
}

/**
 * The values of secret-looking query parameters: a name after `?`, `&` or
 * `;`, its value to the next `&` or `#` (in free text, or whitespace).
 * A `;` does not end a secret's value: a server that splits only on `&`
 * reads all of it as the secret.
 */
function queryRanges(text: string, whole: boolean): Range[] {
  const ranges: Range[] = [];
  const name = /[?&;]([^=&#?;\s]+)=/g;
  for (let match = name.exec(text); match; match = name.exec(text)) {
    if (!SECRET_PARAM.test(decodeSafe(match[1]!))) continue;
    const from = name.lastIndex;
    let to = from;
    while (to < text.length && text[to] !== "&" && text[to] !== "#" && (whole || !/\s/.test(text[to]!))) to++;
    if (to > from) ranges.push([from, to]);
    name.lastIndex = to;
  }
  return ranges;
}

/** npmrc credential keys written out (`_authToken=`, `_auth=`, `_password=`) and Authorization headers: their values. */
function npmrcAndHeaderRanges(text: string): Range[] {
  const ranges: Range[] = [];
  for (const match of text.matchAll(/(_authToken|_auth|_password)\s*=\s*"?([^\s"'&#]+)/g)) {
    const to = match.index + match[0].length;
    ranges.push([to - match[2]!.length, to]);
  }
  for (const match of text.matchAll(/\b(?:authorization|proxy-authorization)["']?\s*[:=]\s*["']?(?:(?:basic|bearer|token)\s*)?([^\s"',}]+)/gi)) {
    const to = match.index + match[0].length;
    ranges.push([to - match[1]!.length, to]);
  }
  return ranges;
}

function decodeSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Split the credentials off a URL: the URL without them, and the Basic
 * authorization header npm would send for them (percent-decoded, as npm
 * does). A URL that does not parse is returned as it is.
 */
export function splitUrlCredentials(url: string): { url: string; authorization: string | null } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url, authorization: null };
  }
  if (!parsed.username && !parsed.password) return { url, authorization: null };
  const user = decodeSafe(parsed.username);
  const password = decodeSafe(parsed.password);
  parsed.username = "";
  parsed.password = "";
  return { url: parsed.toString(), authorization: `Basic ${Buffer.from(`${user}:${password}`, "utf8").toString("base64")}` };
}
