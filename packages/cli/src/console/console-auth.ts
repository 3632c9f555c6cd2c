/**
 * Who gets into `culture console`, and what they may do. Nobody without logging in:
 *
 * - an IRC account of the embedded server, checked against its scrypt account store with the
 *   store's own `verify` (the same file and function the IRC server uses). Agents' accounts are
 *   refused: an agent can read its own generated password, and must not watch its fleet or
 *   decide for it;
 * - or the one-time token `culture console` prints (whoever can read the terminal is the
 *   owner, like the local CLI): it is spent on first use.
 *
 * A login gets a session: a random id in an HttpOnly, SameSite=Strict cookie, a CSRF token the
 * page sends in a header on every change, and an expiry (sliding, capped). Operators are the
 * config's `operators:` accounts (the approval rule: by account, case-folded as IRC does) and
 * the token's owner; everyone else can watch but not decide. The server checks this on every
 * request, not only the page.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { AccountStore, ircLower } from "@culture/server";

/** One logged-in browser. */
export interface ConsoleSession {
  id: string;
  /** The account, or `local` for the one-time token's owner. */
  user: string;
  /** True when the user may decide (approve, deny, pause, resume, stop). */
  operator: boolean;
  /** Sent back by the page in `x-csrf-token` on every change. */
  csrf: string;
  /** Epoch ms after which the session is gone. */
  expires: number;
}

/** Options of {@link ConsoleAuth}. */
export interface ConsoleAuthOptions {
  /** The embedded server's account store (`$CULTURE_HOME/server/accounts.json`). */
  accountsFile: string;
  /** The config's `operators:` accounts. */
  operators: readonly string[];
  /** Idle lifetime of a session in ms (default 30 minutes). */
  idleMs?: number;
  /** Longest life of a session in ms (default 12 hours). */
  maxMs?: number;
  now?: () => number;
}

/** The result of a login. */
export type LoginResult = { ok: true; session: ConsoleSession } | { ok: false; error: string };

/** Sessions, the one-time token and the operator rule of one console. */
export class ConsoleAuth {
  private readonly sessions = new Map<string, ConsoleSession & { started: number }>();
  private readonly store: AccountStore;
  private readonly operators: Set<string>;
  private oneTimeToken: string | null;
  private readonly idleMs: number;
  private readonly maxMs: number;
  private readonly now: () => number;

  constructor(o: ConsoleAuthOptions) {
    this.store = new AccountStore(o.accountsFile);
    this.operators = new Set(o.operators.map((a) => ircLower(a)));
    this.oneTimeToken = randomBytes(24).toString("base64url");
    this.idleMs = o.idleMs ?? 30 * 60_000;
    this.maxMs = o.maxMs ?? 12 * 3_600_000;
    this.now = o.now ?? Date.now;
  }

  /** The token to print (null once spent). */
  get token(): string | null {
    return this.oneTimeToken;
  }

  /** Logs in with an account and password of the embedded server. */
  async loginAccount(account: string, password: string): Promise<LoginResult> {
    const name = await this.store.verify(account, password);
    if (name === null) return { ok: false, error: "wrong account or password" };
    if (this.store.get(name)?.kind === "agent") return { ok: false, error: `${name} is an agent's account: agents cannot log in to the console` };
    return { ok: true, session: this.open(name, this.operators.has(ircLower(name))) };
  }

  /** Logs in with the one-time token (spent on success). */
  loginToken(token: string): LoginResult {
    const expected = this.oneTimeToken;
    if (expected === null || !sameText(expected, token)) return { ok: false, error: "that token is wrong or was already used (restart culture console for a new one)" };
    this.oneTimeToken = null;
    return { ok: true, session: this.open("local", true) };
  }

  /** The live session with this id (its expiry extended), or null. */
  session(id: string | undefined): ConsoleSession | null {
    if (!id) return null;
    const s = this.sessions.get(id);
    if (!s) return null;
    const now = this.now();
    if (now >= s.expires) {
      this.sessions.delete(id);
      return null;
    }
    s.expires = Math.min(now + this.idleMs, s.started + this.maxMs);
    return s;
  }

  /** True when `given` is the session's CSRF token. */
  csrfOk(session: ConsoleSession, given: string | undefined): boolean {
    return typeof given === "string" && sameText(session.csrf, given);
  }

  /** Ends a session. */
  logout(id: string): void {
    this.sessions.delete(id);
  }

  /** Seconds a new session lives when idle (for the cookie's Max-Age). */
  get maxAgeSeconds(): number {
    return Math.floor(this.maxMs / 1000);
  }

  private open(user: string, operator: boolean): ConsoleSession {
    const now = this.now();
    for (const [id, s] of this.sessions) if (now >= s.expires) this.sessions.delete(id);
    const s = { id: randomBytes(32).toString("base64url"), user, operator, csrf: randomBytes(24).toString("base64url"), expires: now + this.idleMs, started: now };
    this.sessions.set(s.id, s);
    return s;
  }
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
