/**
 * `culture doctor`'s check of the local IRC server's real mode: does it let a client in
 * without an account? agents.yaml's `server.open` says what the config wants, not what the
 * running server does (`culture server start --open` opens it without touching agents.yaml,
 * and doctor used to say "accounts: required" for it, issue #31). So doctor asks the server:
 * it registers a client with no password and no SASL, and reports what the server answered.
 */
import { LOCAL_HOSTS, isCultureError, type CultureConfig, type DoctorCheck } from "@culture/core";
import { IrcLineClient } from "../irc-line-client.js";

const NAME = "IRC server accounts";

/**
 * Probes the local server anonymously. Null for a remote server (an open public network is
 * normal IRC) and for a server that cannot be reached (the IRC server check reports that).
 */
export async function serverModeCheck(config: CultureConfig, timeoutMs: number): Promise<DoctorCheck | null> {
  const { host, port } = config.server;
  if (!LOCAL_HOSTS.has(host.toLowerCase())) return null;
  const where = `${host}:${port}`;
  const said = config.server.open ? "agents.yaml says server.open: true" : "agents.yaml does not set server.open";
  try {
    const client = await IrcLineClient.connect({
      host,
      port,
      tls: config.server.tls,
      tlsVerify: config.server.tls_verify,
      password: null,
      nick: `${config.server.name ?? "culture"}-doctor-anon`,
      realname: "culture doctor (anonymous probe)",
      timeoutMs,
    });
    await client.quit("culture doctor").catch(() => client.destroy());
    return {
      ok: true,
      warning: true,
      name: NAME,
      detail: `open: ${where} registered a client without an account, so anyone who can reach the port can talk to the agents (${said})`,
      fix: config.server.open
        ? "remove server.open, restart the server (culture server stop; culture server start) and give each human an account: culture server user add <name>"
        : "restart the server without --open (culture server stop; culture server start) and give each human an account: culture server user add <name>",
    };
  } catch (err) {
    if (!isCultureError(err, "E_IRC_COMMAND_FAILED")) {
      // Not reachable (the IRC server check says so): say what the config asks for, at least.
      return config.server.open
        ? { ok: true, warning: true, name: NAME, detail: `server.open is true in agents.yaml: the server at ${where} (not reachable now) is to let clients in without an account`, fix: "remove server.open and give each human an account: culture server user add <name>" }
        : null;
    }
    const reason = String((err as { details?: { reason?: unknown } }).details?.reason ?? "");
    return {
      ok: true,
      name: NAME,
      detail: `required: ${where} refused a client without an account${reason ? ` ("${reason}")` : ""}; agents use generated credentials, humans: culture server user add <name>${config.server.open ? " (agents.yaml says server.open: true, but the running server was started without --open)" : ""}`,
    };
  }
}
