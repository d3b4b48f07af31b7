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
 */
export function redactText(text: string): string {
  return text
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@"'<>]+)@/gi, (_whole, scheme: string) => `${scheme}${MASK}@`)
    .replace(/([?&;])([^=&#\s"'<>]+)=([^&#\s"'<>]*)/g, (whole, sep: string, name: string, value: string) =>
      SECRET_PARAM.test(decodeSafe(name)) && value !== "" ? `${sep}${name}=${MASK}` : whole,
    )
    .replace(/(_authToken|_auth|_password)(\s*=\s*)("?)[^\s"'&#]+/g, (_whole, key: string, eq: string, quote: string) => `${key}${eq}${quote}${MASK}`)
    .replace(
      /\b(authorization|proxy-authorization)(["']?\s*[:=]\s*["']?)(basic|bearer|token)?(\s*)[^\s"',}]+/gi,
      (_whole, key: string, sep: string, scheme: string | undefined, gap: string) => `${key}${sep}${scheme ?? ""}${gap}${MASK}`,
    );
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
