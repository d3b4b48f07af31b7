/**
 * Idle keep-alive connections of this process's own requests, closed on
 * demand: when Pi takes over the engine's process (src/engine/pi-handover.ts),
 * an idle connection to the registry (the startup offer's question) must not
 * hold Pi's exit back. ./http-get.ts registers its closer when it is first
 * loaded, so a launch that made no request loads no HTTP module for this.
 */
const closers: Array<() => void> = [];

export function onCloseIdleConnections(close: () => void): void {
  closers.push(close);
}

export function closeIdleConnections(): void {
  for (const close of closers.splice(0)) close();
}
