/**
 * Which services account each nick we can see is logged in to. Identity decisions (operators,
 * who may prompt) are made by account, never by nick: on most networks anyone can use any
 * nick that is not in use right now. The server tells us accounts in four ways, in order of
 * trust: the `account` tag on each message (account-tag; when the server tags messages, a
 * message without the tag comes from someone not logged in), the account in an extended JOIN,
 * `ACCOUNT` lines (account-notify), and WHOX replies.
 */

/** One nick -> account table, keyed by the server's case mapping. */
export class AccountTracker {
  /** Folded nick -> account, or null for "known not to be logged in". */
  private readonly accounts = new Map<string, string | null>();

  constructor(private readonly fold: (nick: string) => string) {}

  /** `JOIN #c <account|*> :realname` (extended-join). */
  joined(nick: string, accountParam: string | undefined): void {
    this.accounts.set(this.fold(nick), normalise(accountParam));
  }

  /** `:nick ACCOUNT <account|*>` (account-notify). */
  accountChanged(nick: string, accountParam: string | undefined): void {
    this.accounts.set(this.fold(nick), normalise(accountParam));
  }

  /** A WHOX reply's account field (`0` when not logged in). */
  whox(nick: string, accountField: string | undefined): void {
    this.accounts.set(this.fold(nick), accountField && accountField !== "0" ? accountField : null);
  }

  /** The nick left the network. */
  quit(nick: string): void {
    this.accounts.delete(this.fold(nick));
  }

  /** The nick changed; the account goes with it. */
  renamed(oldNick: string, newNick: string): void {
    const key = this.fold(oldNick);
    const account = this.accounts.get(key);
    this.accounts.delete(key);
    if (account !== undefined) this.accounts.set(this.fold(newNick), account);
  }

  /** Forget everything (we disconnected). */
  clear(): void {
    this.accounts.clear();
  }

  /**
   * The account of a message's sender. With account-tag enabled the tag is the answer (no tag:
   * not logged in), because it is stamped by the server on that very message; otherwise what
   * JOIN/ACCOUNT/WHOX last said, or null when we do not know.
   */
  accountOf(nick: string, tags: Readonly<Record<string, string>>, accountTagEnabled: boolean): string | null {
    const tagged = normalise(tags.account);
    if (accountTagEnabled) return tagged;
    return tagged ?? this.accounts.get(this.fold(nick)) ?? null;
  }
}

function normalise(account: string | undefined): string | null {
  return account && account !== "*" ? account : null;
}
