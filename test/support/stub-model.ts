/**
 * A stub model: a loopback OpenAI-compatible chat-completions server that
 * Pi talks to instead of a real provider, so no credential or network is
 * involved. It answers every chat with a fixed text and records requests.
 *
 * Scopes keep parallel tests apart on one server: `POST /__stub/scopes`
 * returns a fresh base URL `<url>/s/<scope>/v1` whose answer and request log
 * are its own. The unscoped base URL is `<url>/v1`.
 *
 * Control endpoints (also used across processes, e.g. from a vitest worker):
 *   GET  [/s/<scope>]/__stub/requests   the recorded chat requests (JSON)
 *   PUT  [/s/<scope>]/__stub/answer     body {"answer": "..."}
 *   PUT  [/s/<scope>]/__stub/delay      body {"ms": n}: wait n ms before answering (Pi shows its busy border meanwhile)
 *   POST /__stub/scopes                 body {"answer"?: "..."} -> {scope, baseUrl}
 */
import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { join } from "node:path";
import { readBody, scopedPath, sendJson } from "./http-util";

export const STUB_ANSWER = "Hello from the stub model.";
export const STUB_PROVIDER = "gss-stub";
export const STUB_MODEL_ID = "stub-model";

export interface StubRequest {
  time: string;
  method: string;
  path: string;
  authorization: string | null;
  body: unknown;
}

interface Scope {
  answer: string;
  delayMs: number;
  requests: StubRequest[];
}

export interface StubModel {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `http://127.0.0.1:<port>/v1`: the provider baseUrl for Pi's models.json. */
  baseUrl: string;
  requests: StubRequest[];
  setAnswer(text: string): void;
  stop(): Promise<void>;
}

export async function startStubModel(options: { answer?: string; port?: number } = {}): Promise<StubModel> {
  const defaultAnswer = options.answer ?? STUB_ANSWER;
  const scopes = new Map<string, Scope>([["", { answer: defaultAnswer, delayMs: 0, requests: [] }]]);
  let origin = "";

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(error) } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://stub");
    const { scopeName, path } = scopedPath(url.pathname);
    const scope = scopes.get(scopeName);
    if (!scope) return sendJson(res, 404, { error: { message: `unknown stub scope ${scopeName}` } });
    const raw = await readBody(req);

    if (req.method === "POST" && path === "/__stub/scopes" && !scopeName) {
      const body = parseJson(raw) as { answer?: string } | undefined;
      const name = randomBytes(6).toString("hex");
      scopes.set(name, { answer: body?.answer ?? defaultAnswer, delayMs: 0, requests: [] });
      return sendJson(res, 200, { scope: name, baseUrl: `${origin}/s/${name}/v1` });
    }
    if (req.method === "GET" && path === "/__stub/requests") return sendJson(res, 200, scope.requests);
    if (req.method === "PUT" && path === "/__stub/answer") {
      const body = parseJson(raw) as { answer?: unknown } | undefined;
      if (typeof body?.answer !== "string") return sendJson(res, 400, { error: { message: "answer must be a string" } });
      scope.answer = body.answer;
      return sendJson(res, 200, { answer: scope.answer });
    }
    if (req.method === "PUT" && path === "/__stub/delay") {
      const body = parseJson(raw) as { ms?: unknown } | undefined;
      if (typeof body?.ms !== "number" || !(body.ms >= 0)) return sendJson(res, 400, { error: { message: "ms must be a number >= 0" } });
      scope.delayMs = body.ms;
      return sendJson(res, 200, { ms: scope.delayMs });
    }
    if (req.method === "GET" && path === "/v1/models") {
      return sendJson(res, 200, { object: "list", data: [{ id: STUB_MODEL_ID, object: "model", owned_by: "stub" }] });
    }
    if (req.method === "POST" && path === "/v1/chat/completions") {
      const body = parseJson(raw) as { stream?: boolean; model?: string; stream_options?: { include_usage?: boolean } };
      scope.requests.push({
        time: new Date().toISOString(),
        method: req.method,
        path: url.pathname,
        authorization: req.headers.authorization ?? null,
        body: body ?? raw,
      });
      if (!body) return sendJson(res, 400, { error: { message: "body is not JSON" } });
      if (scope.delayMs > 0) await new Promise((r) => setTimeout(r, scope.delayMs));
      return answerChat(res, scope.answer, body.model ?? STUB_MODEL_ID, body.stream === true, !!body.stream_options?.include_usage);
    }
    sendJson(res, 404, { error: { message: `stub model: no route for ${req.method} ${path}` } });
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  origin = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  const main = scopes.get("")!;
  return {
    url: origin,
    baseUrl: `${origin}/v1`,
    requests: main.requests,
    setAnswer(text) {
      main.answer = text;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function answerChat(res: ServerResponse, answer: string, model: string, stream: boolean, usage: boolean) {
  const id = `chatcmpl-stub-${randomBytes(6).toString("hex")}`;
  const created = Math.floor(Date.now() / 1000);
  const tokens = { prompt_tokens: 10, completion_tokens: answer.split(/\s+/).length, total_tokens: 0 };
  tokens.total_tokens = tokens.prompt_tokens + tokens.completion_tokens;
  if (!stream) {
    return sendJson(res, 200, {
      id,
      object: "chat.completion",
      created,
      model,
      choices: [{ index: 0, message: { role: "assistant", content: answer }, finish_reason: "stop" }],
      usage: tokens,
    });
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices, ...extra })}\n\n`;
  res.write(chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]));
  for (const piece of answer.match(/\S+\s*|\s+/g) ?? []) {
    res.write(chunk([{ index: 0, delta: { content: piece }, finish_reason: null }]));
  }
  res.write(chunk([{ index: 0, delta: {}, finish_reason: "stop" }]));
  if (usage) res.write(chunk([], { usage: tokens }));
  res.end("data: [DONE]\n\n");
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** Talk to a stub model in another process (e.g. the one the global setup started). */
export function stubModelClient(url: string) {
  const origin = url.replace(/\/+$/, "");
  return {
    /** A fresh scope: its own answer and request log. */
    async scope(answer?: string) {
      const response = await fetch(`${origin}/__stub/scopes`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(answer === undefined ? {} : { answer }),
      });
      if (!response.ok) throw new Error(`stub model: cannot create a scope (HTTP ${response.status})`);
      const { scope, baseUrl } = (await response.json()) as { scope: string; baseUrl: string };
      const base = `${origin}/s/${scope}`;
      return {
        baseUrl,
        async requests(): Promise<StubRequest[]> {
          return (await fetch(`${base}/__stub/requests`)).json() as Promise<StubRequest[]>;
        },
        async setAnswer(text: string) {
          const r = await fetch(`${base}/__stub/answer`, { method: "PUT", body: JSON.stringify({ answer: text }) });
          if (!r.ok) throw new Error(`stub model: cannot set the answer (HTTP ${r.status})`);
        },
        /** Answer every later chat only after `ms` milliseconds (0: at once). */
        async setDelay(ms: number) {
          const r = await fetch(`${base}/__stub/delay`, { method: "PUT", body: JSON.stringify({ ms }) });
          if (!r.ok) throw new Error(`stub model: cannot set the delay (HTTP ${r.status})`);
        },
      };
    },
  };
}

/**
 * Point Pi's agent dir at the stub: `models.json` with one provider
 * (openai-completions at `baseUrl`, a dummy key, one model) and the
 * defaults in `settings.json` (other settings there are kept).
 */
export async function writeStubModelConfig(agentDir: string, baseUrl: string, options: { modelId?: string; provider?: string } = {}): Promise<void> {
  const provider = options.provider ?? STUB_PROVIDER;
  const modelId = options.modelId ?? STUB_MODEL_ID;
  await mkdir(agentDir, { recursive: true });
  const models = {
    providers: {
      [provider]: {
        baseUrl: baseUrl.replace(/\/+$/, ""),
        api: "openai-completions",
        apiKey: "stub-key-not-a-secret",
        models: [{ id: modelId, name: "Stub model (gentle-shell-setup tests)" }],
      },
    },
  };
  await writeFile(join(agentDir, "models.json"), JSON.stringify(models, null, 2) + "\n");
  const settingsFile = join(agentDir, "settings.json");
  let settings: Record<string, unknown> = {};
  try {
    settings = JSON.parse(await readFile(settingsFile, "utf8"));
  } catch {
    settings = {};
  }
  settings.defaultProvider = provider;
  settings.defaultModel = modelId;
  await writeFile(settingsFile, JSON.stringify(settings, null, 2) + "\n");
}
