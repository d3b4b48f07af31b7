// Test extension (copied into a test's agent home): when GSS_PROCESS_RECORD names a file, writes there
// what the Pi process that loaded it looks like from inside: the parts a second Node used to give Pi for
// free and the launcher now sets up itself when Pi runs in its own process (test/e2e/pi-in-process.test.ts).
import { readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import module, { createRequire } from "node:module";

/** Which of the engine's scripts (a version's .gentle-shell/*.cjs) this process loaded, in loading order. */
function engineScripts() {
  return Object.keys(createRequire(import.meta.url).cache)
    .map((path) => /[\\/]\.gentle-shell[\\/]([a-z]+\.cjs)$/.exec(path)?.[1])
    .filter(Boolean);
}

function kernelName() {
  try {
    return readFileSync("/proc/self/comm", "utf8").trim();
  } catch {
    return null;
  }
}

export default function gssProcess() {
  const file = process.env.GSS_PROCESS_RECORD;
  if (!file) return;
  const record = {
    pid: process.pid,
    argv: process.argv,
    execArgv: process.execArgv,
    title: process.title,
    kernelName: kernelName(),
    umask: process.umask(),
    httpAgentProxy: http.globalAgent.options.proxyEnv !== undefined,
    httpsAgentProxy: https.globalAgent.options.proxyEnv !== undefined,
    exitCode: process.exitCode ?? null,
    streamErrorListeners: { stdout: process.stdout.listenerCount("error"), stderr: process.stderr.listenerCount("error") },
    signalListeners: { SIGINT: process.listenerCount("SIGINT"), SIGTERM: process.listenerCount("SIGTERM"), SIGHUP: process.listenerCount("SIGHUP") },
    compileCache: module.getCompileCacheDir?.() ?? null,
    preloaded: globalThis.__gssPreloaded ?? null,
    engineScripts: engineScripts(),
    env: process.env,
  };
  writeFileSync(file, `${JSON.stringify(record)}\n`);
}
