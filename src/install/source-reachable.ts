/**
 * Before any download (issue 14, CLI conventions): a --source folder that
 * does not exist, or a mirror that does not answer, is named in one sentence,
 * instead of failing later once per artifact. A mirror answers when it sends
 * any HTTP response to one GET of its base URL (a 404 too: the layout is
 * checked per artifact, against the pins); only a request that never gets a
 * response (refused, unknown host, TLS, timeout) stops here.
 */
import { promises as fs } from "node:fs";
import { EXIT, UserError } from "../core/errors";
import { redactUrl } from "../core/secrets";
import { parseSource } from "../core/source";
import { proxyFor } from "../core/proxy";
import type { Host } from "../io/host";
import { proxyAuthRequired, untrustedCertificate } from "../io/http-get";

export interface ReachOptions {
  /** Where the value came from: --source or GENTLE_SHELL_SOURCE. */
  from?: string;
  timeoutMs?: number;
}

/**
 * Resolves when `value` (a --source) can be read; throws one sentence (a UserError) when it cannot. A mirror is asked
 * through the Host's HTTP client, following the proxy variables of its environment (Node's proxy support, ../io/env-proxy.ts).
 */
export async function checkSourceReachable(value: string | undefined, options: ReachOptions, host: Pick<Host, "env" | "http">): Promise<void> {
  const source = parseSource(value, "");
  const from = options.from ?? "--source";
  if (source.kind === "official") return;
  if (source.kind === "folder") {
    const stat = await fs.stat(source.root).catch((error: NodeJS.ErrnoException) => error);
    if (stat instanceof Error) {
      const why = stat.code === "ENOENT" ? "does not exist" : `cannot be read (${stat.code ?? stat.message})`;
      throw new UserError(`the ${from} folder ${source.root} ${why}; nothing was changed`, EXIT.usage);
    }
    if (!stat.isDirectory()) throw new UserError(`${from} ${source.root} is not a folder; nothing was changed`, EXIT.usage);
    return;
  }
  const shown = redactUrl(source.base);
  // A request through a proxy that fails may be the proxy's fault: say which way it went.
  const { env } = host;
  const proxy = proxyFor(source.base, env);
  const via = proxy ? ` through the proxy ${redactUrl(proxy)}` : "";
  const timeoutMs = options.timeoutMs ?? 15_000;
  const answer = await host.http.answersAtAll(source.base, timeoutMs);
  if ("answered" in answer) return;
  if (answer.failed === "timeout")
    throw new UserError(`the ${from} mirror ${shown} did not answer${via} within ${Number((timeoutMs / 1000).toFixed(1))} s; nothing was changed`);
  if (answer.failed === "proxy-auth")
    throw new UserError(`the ${from} mirror ${shown} cannot be asked: ${proxyAuthRequired(source.base, env)}; nothing was changed`);
  if (answer.failed === "certificate")
    throw new UserError(`the ${from} mirror ${shown} answered, but ${untrustedCertificate(source.base)}; nothing was changed`);
  if (answer.failed === "not-made") throw new UserError(`the ${from} mirror ${shown} cannot be asked (${answer.cause}); nothing was changed`, EXIT.usage);
  throw new UserError(`the ${from} mirror ${shown} does not answer${via} (${answer.cause}); nothing was changed`);
}
