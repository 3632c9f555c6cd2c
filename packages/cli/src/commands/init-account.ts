/**
 * The human's IRC account, for `culture init`: `operators:` names IRC accounts, and culture's
 * embedded server lets nobody in without one (`irssi -c 127.0.0.1 -p 6667` alone gets 464).
 * When the embedded server's account store is there (it is created by `culture server start`),
 * init creates the account and prints its password once; otherwise it says the exact command.
 * On another network, the account is the services account (NickServ).
 */
import { userInfo } from "node:os";
import { AccountStore, generatePassword } from "@culture/server";
import { embeddedAccountStorePath, isEmbeddedServer, LOCAL_HOSTS } from "@culture/core";
import { loginHelp } from "./server-user.js";

/** The default account name: the OS user name, IRC-safe (`operator` when nothing is left). */
export function defaultOperatorName(): string {
  let name = "";
  try {
    name = userInfo().username;
  } catch {
    name = process.env.USER ?? "";
  }
  const safe = name.toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(/^[-\d]+|-+$/g, "");
  return safe || "operator";
}

/** What init did about the account: the lines to print, and a command for the Next list when it could not. */
export interface InitAccountResult {
  text: string;
  next: [command: string, why: string] | null;
}

/** Creates `name` on the embedded server when its store is there; otherwise says how. */
export async function ensureHumanAccount(name: string, server: { host: string; port: number }): Promise<InitAccountResult> {
  if (!LOCAL_HOSTS.has(server.host.toLowerCase())) {
    return {
      text: `operators: names your IRC account ${name}: register it with the services of ${server.host}:${server.port} (e.g. /msg NickServ REGISTER <password> <email>) and log in with SASL.\n`,
      next: null,
    };
  }
  if (!isEmbeddedServer(server)) {
    return { text: "", next: [`culture server user add ${name}`, `your IRC account (the server lets nobody in without one); run it once the server has started`] };
  }
  const store = new AccountStore(embeddedAccountStorePath());
  if (store.has(name)) {
    return { text: `The embedded IRC server already has an account ${name} (culture server user passwd ${name} sets a new password).\n`, next: null };
  }
  const password = generatePassword();
  await store.add(name, password, "human");
  return { text: `Created your IRC account ${name} on the embedded IRC server.\nPassword (shown only now): ${password}\n${loginHelp(name, server.port)}`, next: null };
}
