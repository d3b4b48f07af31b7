/**
 * Can the fixtures' registry reach its uplink, npm's configured registry?
 * One request for the real Pi's package document, with this process's own
 * trust (NODE_EXTRA_CA_CERTS included), as verdaccio's requests have it.
 * The answer is one sentence naming the cause and what to check, or null.
 * The URL is shown without credentials.
 */
import { get as httpGet } from "node:http";
import { get as httpsGet } from "node:https";

const PI = "@earendil-works%2fpi-coding-agent";
const CERTIFICATE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/;

function shown(uplink: string): string {
  try {
    const url = new URL(uplink);
    url.username = "";
    url.password = "";
    return url.toString();
  } catch {
    return "(an unreadable URL)";
  }
}

export function uplinkProblem(uplink: string, waitMs = 60_000): Promise<string | null> {
  const where = `npm's configured registry ${shown(uplink)}`;
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(`${uplink.replace(/\/+$/, "")}/${PI}`);
    } catch {
      resolve(`The fixtures cannot use ${where}: it is not a URL; fix registry= in your npm config.`);
      return;
    }
    const get = url.protocol === "https:" ? httpsGet : httpGet;
    const req = get(url, { headers: { accept: "application/vnd.npm.install-v1+json" } }, (res) => {
      res.resume();
      const status = res.statusCode ?? 0;
      resolve(
        status === 200
          ? null
          : `The fixtures cannot proxy the real Pi from ${where}: it answered HTTP ${status}; check that registry= names a registry that serves @earendil-works/pi-coding-agent, and its credentials.`,
      );
    });
    req.setTimeout(waitMs, () => req.destroy(Object.assign(new Error("no answer"), { code: "ETIMEDOUT" })));
    req.on("error", (error: NodeJS.ErrnoException) => {
      const code = error.code ?? error.message;
      resolve(
        CERTIFICATE.test(code)
          ? `The fixtures cannot reach ${where}: its certificate is not trusted (${code}); set NODE_EXTRA_CA_CERTS to your network's CA file and run again.`
          : `The fixtures cannot reach ${where} (${code}); check the network, or a proxy, and run again.`,
      );
    });
  });
}
