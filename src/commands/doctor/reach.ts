/**
 * doctor's reachability checks for the official source (issue 41): the npm
 * registry the install asks (npm's configuration, as install, upgrade and
 * update find it) and the release home (the GitHub releases the signed
 * manifest is fetched from), each asked once through the Host's one HTTP
 * client, so the user's proxy and trust settings (and npm's ca and cafile,
 * for the registry) apply. Any HTTP response counts as an answer; no
 * redirect is followed. Offline (PI_OFFLINE, or a client that makes no
 * request): not asked. A failure is a warning of one sentence, never a
 * stack, and a URL's credentials are masked.
 */
import { piOfflineByEnv } from "../../core/env-flags";
import type { Env } from "../../core/environment";
import { proxyFor } from "../../core/proxy";
import { RELEASE_MANIFEST } from "../../core/release-manifest";
import { redactText, redactUrl } from "../../core/secrets";
import { RELEASE_HOME, SHELL_RELEASES, artifactLocation, releasePath } from "../../core/source";
import { readTextOrNull } from "../../io/files";
import type { HttpClient } from "../../io/http-client";
import { proxyAuthRequired, untrustedCertificate } from "../../io/http-get";
import { recordedRegistry } from "../../install/npm-registry";
import { trustRegistries } from "../../install/npm-settings";
import type { DoctorContext } from "./context";
import type { Check } from "./plan";

/** How long each is given: doctor is a quick look, not a download. */
export const REACH_TIMEOUT_MS = 10_000;

/** The release home as a person names it. */
export const RELEASE_HOME_PAGE = `https://github.com/${RELEASE_HOME}/releases`;

export type Answer = Awaited<ReturnType<HttpClient["answersAtAll"]>>;

export interface ReachTarget {
  id: "machine.registry" | "machine.release-home";
  /** "the npm registry", "the release home". */
  name: string;
  /** What is named in the line (credentials masked here). */
  shown: string;
  /** What is asked. */
  url: string;
  /** What needs it, and what to look at: the repair's sentence when it does not answer. */
  advice: string;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** Why a request that got no response failed, in words: a DNS name, a refused connection, a proxy's refusal, a cut. */
export function unreachableWhy(cause: string, url: string, proxy: string | null): string {
  const host = hostOf(url);
  const via = proxy ? redactUrl(proxy) : null;
  if (/^(ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL)$/.test(cause))
    return via ? `the proxy ${via}'s host name does not resolve (DNS: ${cause})` : `its host name ${host} does not resolve (DNS: ${cause})`;
  if (cause === "ECONNREFUSED") return via ? `the proxy ${via} refused the connection (${cause})` : `${host} refused the connection (${cause})`;
  if (cause === "ERR_PROXY_TUNNEL") return `the proxy ${via ?? "on the way"} would not open a tunnel to ${host} (${cause})`;
  if (cause === "ECONNRESET" || /socket hang up/i.test(cause))
    return `the connection${via ? ` through the proxy ${via}` : ""} was cut before any answer (${cause})`;
  if (cause === "ETIMEDOUT" || cause === "ENETUNREACH" || cause === "EHOSTUNREACH")
    return `${host} cannot be reached${via ? ` through the proxy ${via}` : ""} from this network (${cause})`;
  return `it does not answer${via ? ` through the proxy ${via}` : ""} (${cause})`;
}

/** The check for `target` once asked: ok, or a warning of one sentence with what to look at. Pure. */
export function reachCheck(target: ReachTarget, answer: Answer, env: Env, timeoutMs = REACH_TIMEOUT_MS): Check {
  const proxy = proxyFor(target.url, env);
  const via = proxy ? ` through the proxy ${redactUrl(proxy)}` : "";
  const what = `${target.name} ${redactUrl(target.shown)}`;
  const base = { group: "machine" as const, id: target.id };
  if ("answered" in answer) return { ...base, status: "ok", line: `${what} answers${via}` };
  let line: string;
  if (answer.failed === "timeout") line = `${what} did not answer${via} within ${Number((timeoutMs / 1000).toFixed(1))} s`;
  else if (answer.failed === "proxy-auth") line = `${what} cannot be asked: ${proxyAuthRequired(target.url, env)}`;
  else if (answer.failed === "certificate") line = `${what} answered, but ${untrustedCertificate(target.url)}`;
  else if (answer.failed === "not-made") line = `${what} cannot be asked (${answer.cause})`;
  else line = `${what} cannot be reached: ${unreachableWhy(answer.cause, target.url, proxy)}`;
  return { ...base, status: "warn", line: redactText(line), repair: { kind: "command", sentence: target.advice } };
}

/** A check that could not ask at all (offline, or no registry known): one line, `status` as given. */
function notAsked(id: ReachTarget["id"], status: "ok" | "warn", line: string, advice?: string): Check {
  return { group: "machine", id, status, line: redactText(line), ...(advice ? { repair: { kind: "command", sentence: advice } } : {}) };
}

const REGISTRY_ADVICE = "installs, upgrades and updates need it: check the network, the proxy (HTTPS_PROXY) or the registry your npm settings name";
const HOME_ADVICE = "an upgrade needs it: check the network or the proxy (HTTPS_PROXY), or name a mirror or an offline bundle with --source";

/** The release home's URL the install fetches `shell`'s signed manifest from; without an active version, the downloads' root. */
export function releaseHomeUrl(shell: string | null): string {
  return shell ? artifactLocation({ kind: "official", registry: "" }, releasePath(shell, RELEASE_MANIFEST)) : SHELL_RELEASES;
}

/** The registry check: npm's configuration names it (npm asked only when nothing records its answer; nothing written). */
async function registryCheck(ctx: DoctorContext): Promise<Check> {
  const { layout, env, http } = ctx;
  const npmrc = (await readTextOrNull(layout.pnpm.npmrc).catch(() => null)) ?? "";
  const registry = await recordedRegistry(layout, npmrc, env, REACH_TIMEOUT_MS, false);
  if (!registry)
    return notAsked("machine.registry", "warn", "the npm registry could not be named: our npm did not report one (npm config get registry)", REGISTRY_ADVICE);
  try {
    await trustRegistries(http, [registry], npmrc, env);
  } catch (error) {
    return notAsked("machine.registry", "warn", `the npm registry ${redactUrl(registry)} cannot be asked: ${(error as Error).message}`);
  }
  const target: ReachTarget = { id: "machine.registry", name: "the npm registry", shown: registry, url: registry, advice: REGISTRY_ADVICE };
  return reachCheck(target, await http.answersAtAll(registry, REACH_TIMEOUT_MS), env);
}

async function releaseHomeCheck(ctx: DoctorContext, shell: string | null): Promise<Check> {
  const url = releaseHomeUrl(shell);
  const target: ReachTarget = { id: "machine.release-home", name: "the release home", shown: RELEASE_HOME_PAGE, url, advice: HOME_ADVICE };
  return reachCheck(target, await ctx.http.answersAtAll(url, REACH_TIMEOUT_MS), ctx.env);
}

/** The official source's two places, asked at once; offline, each is named as not asked. `shell`: the active gentle-pi version. */
export async function officialReachChecks(ctx: DoctorContext, shell: string | null): Promise<Check[]> {
  if (piOfflineByEnv(ctx.env) || ctx.http.offline)
    return [
      notAsked("machine.registry", "ok", "the npm registry was not asked (offline)"),
      notAsked("machine.release-home", "ok", `the release home ${RELEASE_HOME_PAGE} was not asked (offline)`),
    ];
  return Promise.all([registryCheck(ctx), releaseHomeCheck(ctx, shell)]);
}
