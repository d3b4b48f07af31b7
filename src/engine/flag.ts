/** First argument the launcher passes so the bundled script runs as the engine. */
export const ENGINE_FLAG = "--gentle-shell-engine";
