/** The engine's command-line contract, shared by main.ts, the engine and the launcher it writes (core: every layer reads it). */
/** First argument the launcher passes so the bundled script runs as the engine. */
export const ENGINE_FLAG = "--gentle-shell-engine";

/**
 * The arguments after a node that start the engine file `engine` with `args`, as the launcher
 * does: for a caller that starts the engine directly (Windows, where Node cannot start the .cmd
 * launcher without a shell; update's `update --extensions`). The one place they are written.
 */
export function engineArgs(engine: string, args: readonly string[]): string[] {
  return [engine, ENGINE_FLAG, ...args];
}

/** First argument when another engine uses this one as its version's module (upgrade, rollback). */
export const INTERNAL_FLAG = "--gentle-shell-engine-internal";

/**
 * Set by an upgrade whose module call already ran this version's Pi (src/installed/pi-version.ts):
 * the launcher check of that version then does not start the same Pi a second time.
 * Like GENTLE_SHELL_VERIFY_VERSION, never passed on to Pi (privateChildEnv).
 */
export const PI_CHECKED_VARIABLE = "GENTLE_SHELL_PI_CHECKED";

/**
 * Set by the launcher beside the NODE_USE_SYSTEM_CA=1 it sets for the engine
 * when the user set none: that value is the launcher's, not the user's, so
 * privateChildEnv takes both away and Pi's children (the agent's shell, every
 * node the user runs there) never get the variable from us.
 */
export const SYSTEM_CA_MARKER = "GENTLE_SHELL_SYSTEM_CA";
