/**
 * Whether a first connection that ended before registration is tried again. The first
 * connection is a probe (a daemon that cannot get on IRC fails its start loudly), but "the
 * server closed us before we registered" on a busy machine (50 daemons and their agents
 * starting on two cores: the server's 10 s registration deadline passes while the daemon waits
 * for CPU) says nothing about the configuration, and a second try usually gets through. A
 * server that is not there, or one that refused the login, a ban or the nick, fails at once:
 * trying again cannot help and would only delay the error.
 */

/** What the ended attempt came to, and how many retries were made. */
export interface FirstConnectAttempt {
  /** The attempt reached the server (the socket connected). */
  reached: boolean;
  /** The server refused it for cause (SASL, password, ban, nick). */
  refused: boolean;
  /** The server's ERROR line before it closed the link, or null when it sent none. */
  serverError: string | null;
  /** Retries already made. */
  retried: number;
  /** Most retries. */
  max: number;
  /** The first retry's delay; each further one doubles it. */
  minMs: number;
}

/** The delay before the next try in ms, or null when the first connection has failed for good. */
export function firstConnectRetry(a: FirstConnectAttempt): number | null {
  if (!a.reached || a.refused || a.retried >= a.max) return null;
  if (a.serverError !== null && !/time\s*-?out/i.test(a.serverError)) return null;
  // Spread the retries of many daemons refused together, so they do not return as one wave.
  const base = a.minMs * 2 ** a.retried;
  return Math.round(base * (1 + Math.random() / 2));
}
