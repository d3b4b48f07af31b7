/**
 * The code Node gives an error of a file, process or network call (ENOENT,
 * EEXIST, ECONNRESET, ERR_PROXY_TUNNEL, ...), read in one place. Only a
 * string is a code: a DOMException (an abort) carries a number there.
 */
export function errnoCode(error: unknown): string | undefined {
  const code: unknown = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}
