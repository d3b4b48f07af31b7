/** First argument the launcher passes so the bundled script runs as the engine. */
export const ENGINE_FLAG = "--gentle-shell-engine";

/** First argument when another engine uses this one as its version's module (upgrade, rollback). */
export const INTERNAL_FLAG = "--gentle-shell-engine-internal";
