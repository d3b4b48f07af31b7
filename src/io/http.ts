/** Small bounded text fetches: release assets and registry metadata. */
import { ofetch } from "ofetch";

export interface TextFetchOptions {
  name: string;
  maxBytes: number;
  redirectHosts?: string[];
  headers?: Record<string, string>;
  timeoutMs?: number;
  attempts?: number;
}

export async function fetchBoundedText(url: string, options: TextFetchOptions, redirects = 0): Promise<string> {
  const attempts = options.attempts ?? 3;
  let last: Error | null = null;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? 30_000);
    try {
      let response: Response;
      try {
        response = await ofetch.raw(url, {
          headers: { "accept-encoding": "identity", ...(options.headers ?? {}) },
          redirect: "manual",
          retry: false,
          ignoreResponseError: true,
          responseType: "stream",
          signal: controller.signal,
        });
      } catch (error) {
        last = new Error(`could not reach ${url} for ${options.name}`);
        continue;
      }
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel().catch(() => undefined);
        const location = response.headers.get("location");
        const next = location ? new URL(location, url) : null;
        if (!next || next.protocol !== "https:" || !(options.redirectHosts ?? []).includes(next.host) || redirects >= 5) {
          throw new Error(`${url} redirected ${options.name} to ${next?.host ?? "nowhere"}, which is not allowed`);
        }
        return fetchBoundedText(next.toString(), options, redirects + 1);
      }
      if (response.status === 404) {
        await response.body?.cancel().catch(() => undefined);
        throw Object.assign(new Error(`${options.name} was not found at ${url} (HTTP 404)`), { status: 404 });
      }
      if (response.status !== 200) {
        await response.body?.cancel().catch(() => undefined);
        last = new Error(`${url} answered HTTP ${response.status} for ${options.name}`);
        if (response.status >= 500) continue;
        throw last;
      }
      const encoding = (response.headers.get("content-encoding") ?? "identity").toLowerCase();
      if (encoding !== "identity" && encoding !== "") {
        await response.body?.cancel().catch(() => undefined);
        throw new Error(`${url} sent ${options.name} ${encoding}-encoded; only identity is accepted`);
      }
      const length = Number(response.headers.get("content-length") ?? "0");
      if (length > options.maxBytes) {
        await response.body?.cancel().catch(() => undefined);
        throw new Error(`${options.name} at ${url} is larger than ${options.maxBytes} bytes`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      const reader = response.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > options.maxBytes) {
          await reader.cancel().catch(() => undefined);
          throw new Error(`${options.name} at ${url} is larger than ${options.maxBytes} bytes`);
        }
        chunks.push(Buffer.from(value));
      }
      return Buffer.concat(chunks).toString("utf8");
    } finally {
      clearTimeout(timer);
    }
  }
  throw last ?? new Error(`could not fetch ${options.name}`);
}
