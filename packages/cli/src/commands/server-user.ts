/**
 * `culture server user add|remove|list|passwd`: the embedded server's accounts
 * (`$CULTURE_HOME/server/accounts.json`, mode 0600, scrypt hashes). The server re-reads the
 * file when it changes, so these work while it runs. A new password is generated and printed
 * once, or read from `--password-file` (its first line); it is never stored in clear.
 */
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { accountStoreFailed, CultureError, embeddedAccountStorePath, usageError } from "@culture/core";
import { AccountStore, generatePassword } from "@culture/server";

/** Registers `culture server user ...` under `culture server`. */
export function registerServerUserCommand(server: Command): void {
  const user = server.command("user").description("accounts on the embedded IRC server (every client logs in with one)");
  user
    .command("add")
    .description("create an account; prints its generated password once (or use --password-file)")
    .argument("<name>", "the account name, which is also the nick it owns")
    .option("--password-file <file>", "read the password from the first line of this file")
    .option("--agent", "mark it as an agent's account (agents normally get theirs automatically)")
    .action(async (name: string, opts: { passwordFile?: string; agent?: boolean }) => {
      const password = opts.passwordFile ? readPasswordFile(opts.passwordFile) : generatePassword();
      await run(() => store().add(name, password, opts.agent ? "agent" : "human"));
      process.stdout.write(`Created account ${name} on the embedded IRC server.\n`);
      if (!opts.passwordFile) process.stdout.write(`Password (shown only now): ${password}\n`);
      process.stdout.write(loginHelp(name));
    });
  user
    .command("passwd")
    .description("set a new password; prints the generated one once (or use --password-file)")
    .argument("<name>", "the account")
    .option("--password-file <file>", "read the password from the first line of this file")
    .action(async (name: string, opts: { passwordFile?: string }) => {
      const password = opts.passwordFile ? readPasswordFile(opts.passwordFile) : generatePassword();
      await run(() => store().setPassword(name, password));
      process.stdout.write(`Changed the password of ${name}.\n`);
      if (!opts.passwordFile) process.stdout.write(`Password (shown only now): ${password}\n`);
    });
  user
    .command("remove")
    .description("delete an account (its open connections stay until they disconnect)")
    .argument("<name>", "the account")
    .action(async (name: string) => {
      await run(() => store().remove(name));
      process.stdout.write(`Removed account ${name}.\n`);
    });
  user
    .command("list")
    .description("list the accounts (names, kinds, creation times; never passwords)")
    .option("--json", "print a JSON array")
    .action((opts: { json?: boolean }) => {
      const accounts = store().list();
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(accounts)}\n`);
        return;
      }
      if (accounts.length === 0) {
        process.stdout.write(`No accounts yet (${embeddedAccountStorePath()}). Add one: culture server user add <name>\n`);
        return;
      }
      const width = Math.max(4, ...accounts.map((a) => a.name.length));
      process.stdout.write(`${"NAME".padEnd(width)}  KIND   CREATED\n`);
      for (const a of accounts) process.stdout.write(`${a.name.padEnd(width)}  ${a.kind.padEnd(5)}  ${a.created}\n`);
    });
}

/** How to log in, printed after `add`. */
export function loginHelp(name: string, port = 6667): string {
  return (
    `Log in with SASL PLAIN as ${name}, or give any IRC client the server password ${name}:<password>, e.g.:\n` +
    `  weechat: /server add culture 127.0.0.1/${port} -sasl_username=${name} -sasl_password=<password>\n` +
    `  irssi:   /connect 127.0.0.1 ${port} ${name}:<password> ${name}\n`
  );
}

function store(): AccountStore {
  return new AccountStore(embeddedAccountStorePath());
}

function readPasswordFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw usageError(`cannot read --password-file ${path}: ${(err as Error).message}`);
  }
  const password = (text.split(/\r?\n/)[0] ?? "").trim();
  if (password.length === 0) throw usageError(`--password-file ${path}: the first line is empty`);
  return password;
}

async function run<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (err) {
    if (err instanceof CultureError) throw err;
    throw accountStoreFailed(embeddedAccountStorePath(), (err as Error).message);
  }
}
