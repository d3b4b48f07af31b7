/**
 * The real-Pi tests' side of an installed home: the environment a launch
 * gets, the test extensions (./pi-extensions/) dropped into the agent home,
 * and Pi 1.6.0's session files read back.
 *
 *   const env = piEnv(i.env);                                  // memory off, offline, no telemetry
 *   await addPiExtension(agentDir, "gss-argv.js");
 *   const [file] = await sessionFiles(join(agentDir, "sessions"), id);
 */
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { SUPPORT_DIR } from "./paths";

/**
 * A launch environment: memory off by the user's policy (so no Pi of a test starts the shared Engram
 * server on 127.0.0.1:7437), Pi offline (no fd/ripgrep download) and without telemetry.
 */
export function piEnv(base: NodeJS.ProcessEnv, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...base, ENGRAM_STARTUP_POLICY: "disabled", PI_OFFLINE: "1", PI_TELEMETRY: "0", LANG: "C.UTF-8", ...extra };
}

/** Copy test/support/pi-extensions/<name> into `<agentDir>/extensions/`, where Pi discovers it. */
export async function addPiExtension(agentDir: string, name: string): Promise<void> {
  await fs.mkdir(join(agentDir, "extensions"), { recursive: true });
  await fs.copyFile(join(SUPPORT_DIR, "pi-extensions", name), join(agentDir, "extensions", name));
}

/** Pi 1.6.0's project folder for `cwd` under a sessions/ folder (session-manager.js getDefaultSessionDirPath). */
export function projectSessionFolder(cwd: string): string {
  return `--${cwd.replace(/^\//, "").replace(/[/\\:]/g, "-")}--`;
}

/** `<ISO time with : and . as ->_<id>.jsonl`, the name Pi gives a session file. */
export function sessionFileName(id: string): RegExp {
  return new RegExp(`^\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}-\\d{3}Z_${id.replace(/[^0-9a-f-]/gi, "")}\\.jsonl$`);
}

/** Every regular file named `*_<id>.jsonl` (any id when omitted) at any depth below `dir`. */
export async function sessionFiles(dir: string, id?: string): Promise<string[]> {
  const found: string[] = [];
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith(".jsonl")) continue;
    if (id !== undefined && !entry.name.endsWith(`_${id}.jsonl`)) continue;
    found.push(join(entry.parentPath, entry.name));
  }
  return found.sort();
}

export interface SessionHeader {
  type: "session";
  id: string;
  cwd: string;
  timestamp: string;
  parentSession?: string;
}

export interface SessionMessage {
  role: string;
  content: unknown;
}

/** A session file: its header line and the text of its user and assistant messages, in order. */
export async function readSession(file: string): Promise<{ header: SessionHeader; turns: { role: string; text: string }[] }> {
  const entries = (await fs.readFile(file, "utf8"))
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as { type: string; message?: SessionMessage });
  const header = entries[0] as unknown as SessionHeader;
  if (header?.type !== "session") throw new Error(`${file}: the first line is not a session header`);
  const turns = entries
    .filter((e) => e.type === "message" && (e.message?.role === "user" || e.message?.role === "assistant"))
    .map((e) => ({ role: e.message!.role, text: messageText(e.message!.content) }));
  return { header, turns };
}

/** The text of a chat or session message's content (a string, or parts with `text`). */
export function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("");
  return "";
}

/** The user and assistant turns of a chat-completions request body the stub model recorded. */
export function requestTurns(body: unknown): { role: string; text: string }[] {
  const messages = (body as { messages?: SessionMessage[] })?.messages ?? [];
  return messages.filter((m) => m.role === "user" || m.role === "assistant").map((m) => ({ role: m.role, text: messageText(m.content) }));
}
