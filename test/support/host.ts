/**
 * A Host (src/io/host.ts) for in-process tests: its lines kept in `lines`,
 * its questions answered from `answers` in turn (a missing one: no terminal),
 * no progress, and the environment, platform and home a test gives it.
 */
import type { Reply } from "../../src/io/prompt";
import type { Host, HostMode, JsonDocument } from "../../src/io/host";
import { silentProgress } from "../../src/io/progress";

export interface TestHost extends Host {
  lines: { out: string[]; err: string[]; asked: string[] };
}

export function testHost(
  given: Partial<Pick<Host, "env" | "platform" | "home" | "terminal" | "color">> & Partial<HostMode> & { answers?: Reply[]; requests?: string[] } = {},
): TestHost {
  const lines = { out: [] as string[], err: [] as string[], asked: [] as string[] };
  const answers = [...(given.answers ?? [])];
  // One document for every mode of this host, made when a mode first asks for --json.
  const document: JsonDocument = { fields: {}, error: null };
  const make = (mode: HostMode): TestHost => ({
    env: given.env ?? {},
    platform: given.platform ?? "linux",
    home: given.home ?? "/home/test",
    terminal: given.terminal ?? false,
    color: given.color ?? false,
    ...mode,
    lines,
    out: (line) => void lines.out.push(line),
    err: (line) => void lines.err.push(line),
    ask: async (question) => {
      lines.asked.push(question);
      return answers.shift() ?? { noTerminal: true };
    },
    progress: () => silentProgress,
    requests: async function* () {
      yield* given.requests ?? [];
    },
    document: mode.json ? document : null,
    withMode: (changed) => make({ ...mode, ...changed }),
  });
  return make({ quiet: given.quiet ?? false, json: given.json ?? false });
}
