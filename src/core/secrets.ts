/**
 * Secrets never reach what we print. npm accepts a registry written with
 * credentials in it (`http://user:password@host/`); we send those as an
 * `Authorization: Basic` header, as npm does, and show the URL only masked.
 * Pure: no I/O.
 */

const MASK = "***";

/** Query parameters whose values are credentials (`?token=`, `?_authToken=`, `?sig=`, ...). */
const SECRET_PARAM = /^(.*token.*|.*auth.*|.*secret.*|.*password.*|.*passwd.*|sig|.*signature|key|.*api[-_]?key|.*access[-_]?key.*|.*credential.*)$/i;

/** A URL with any `user:password@` and secret-looking query values replaced by `***`. */
export function redactUrl(url: string): string {
  return redactText(url);
}

/**
 * Text (an error message, a plan line) with every URL's credentials masked:
 * `scheme://user:pass@` → `scheme://***@`, and the values of secret-looking
 * query parameters → `***`.
 */
export function redactText(text: string): string {
  return text
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@"'<>]+)@/gi, (_whole, scheme: string) => `${scheme}${MASK}@`)
    .replace(/([?&])([^=&#\s"'<>]+)=([^&#\s"'<>]*)/g, (whole, sep: string, name: string, value: string) =>
      SECRET_PARAM.test(decodeSafe(name)) && value !== "" ? `${sep}${name}=${MASK}` : whole,
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
