/**
 * culture's side of the Agent Client Protocol: what the agent may ask of its client. We
 * advertise only what is implemented here (reading and writing text files inside the
 * agent's directory) and answer permission requests by policy, since there is no editor
 * user to ask. Anything else the agent requests (terminals, elicitation, extensions) gets
 * the SDK's JSON-RPC "method not found" answer, so the agent is never left waiting.
 */
import * as acp from "@agentclientprotocol/sdk";
import type {
  ClientCapabilities,
  PermissionOption,
  RequestPermissionOutcome,
  RequestPermissionRequest,
  SessionNotification,
} from "@agentclientprotocol/sdk";
import { agentAuthRequired, agentProtocolError, type Logger } from "@culture/core";
import { lstat, mkdir, readFile, realpath, writeFile } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, resolve, sep } from "node:path";
import type { PermissionPolicy } from "./acp-options.js";

/** The ACP protocol version culture speaks. */
export const ACP_PROTOCOL_VERSION = 1;

/** What {@link createAcpClient} needs. */
export interface AcpClientOptions {
  /** The agent's directory: the only place `fs/*` requests may touch. */
  directory: string;
  permission: PermissionPolicy;
  /** Whether to serve `fs/read_text_file` and `fs/write_text_file` (and advertise them). */
  fileSystem: boolean;
  logger: Logger;
  /** Called synchronously, in arrival order, for every `session/update` notification. */
  onUpdate(notification: SessionNotification): void;
  /**
   * Answers `session/request_permission` instead of `permission` (the runner routes requests
   * to the daemon when the agent's `permissions.mode` is not `bypass`).
   */
  onPermission?(params: RequestPermissionRequest): Promise<RequestPermissionOutcome>;
}

/** The client capabilities to send in `initialize`: only what {@link createAcpClient} serves. */
export function clientCapabilities(fileSystem: boolean): ClientCapabilities {
  return { fs: { readTextFile: fileSystem, writeTextFile: fileSystem }, terminal: false };
}

/** Builds the ACP client app (the handlers of requests the agent sends us). */
export function createAcpClient(options: AcpClientOptions): acp.ClientApp {
  const { logger } = options;
  let app = acp
    .client({ name: "culture" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      // Synchronous on purpose: the SDK starts handlers in arrival order but does not
      // await them, so the runner serializes whatever async work follows.
      options.onUpdate(params);
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      if (options.onPermission) return { outcome: await options.onPermission(params) };
      const outcome = choosePermissionOption(params.options, options.permission);
      logger.info("answered a permission request", {
        tool: params.toolCall.title ?? params.toolCall.toolCallId,
        policy: options.permission,
        outcome: outcome.outcome === "selected" ? outcome.optionId : "cancelled",
      });
      return { outcome };
    });
  if (options.fileSystem) {
    app = app
      .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
        const path = await confinePath(options.directory, params.path);
        let content: string;
        try {
          content = await readFile(path, "utf8");
        } catch (err) {
          throw fileError(err, params.path);
        }
        return { content: sliceLines(content, params.line ?? undefined, params.limit ?? undefined) };
      })
      .onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
        const path = await confinePath(options.directory, params.path);
        try {
          await mkdir(dirname(path), { recursive: true });
          await writeFile(path, params.content, "utf8");
        } catch (err) {
          throw fileError(err, params.path);
        }
        logger.debug("agent wrote a file", { path });
        return {};
      });
  }
  return app;
}

/**
 * Picks the answer to a permission request. `allow` prefers a one-time allow (it leaves no
 * standing rule behind in the agent), then an always-allow; `deny` prefers a one-time reject.
 * With no option of the wanted kind the request is answered `cancelled`.
 */
export function choosePermissionOption(options: readonly PermissionOption[], policy: PermissionPolicy): RequestPermissionOutcome {
  const kinds = policy === "allow" ? (["allow_once", "allow_always"] as const) : (["reject_once", "reject_always"] as const);
  for (const kind of kinds) {
    const option = options.find((o) => o.kind === kind);
    if (option) return { outcome: "selected", optionId: option.optionId };
  }
  return { outcome: "cancelled" };
}

/**
 * Resolves `path` (absolute, as ACP requires) and checks that it lies inside `directory`,
 * following symlinks of every part that exists, so a link inside the directory cannot
 * lead outside it. Returns the real path; throws a JSON-RPC invalid-params error otherwise.
 */
export async function confinePath(directory: string, path: string): Promise<string> {
  if (!isAbsolute(path)) {
    throw acp.RequestError.invalidParams({ path }, `the path must be absolute: ${path}`);
  }
  const root = await realpath(directory);
  const real = await realpathOfExisting(resolve(path));
  if (real === null || (real !== root && !real.startsWith(root.endsWith(sep) ? root : root + sep))) {
    throw acp.RequestError.invalidParams({ path }, `${path} is outside the agent's directory ${root}`);
  }
  return real;
}

/**
 * realpath() of the longest existing prefix of `path`, with the rest appended; null when a
 * part of it is a dangling symlink (writing through it could land anywhere).
 */
async function realpathOfExisting(path: string): Promise<string | null> {
  const rest: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(await realpath(current), ...rest.reverse());
    } catch {
      if (await lstat(current).then(() => true, () => false)) return null;
      const parent = dirname(current);
      if (parent === current) return path;
      rest.push(basename(current));
      current = parent;
    }
  }
}

/**
 * Maps a failed `session/new` to culture's error: "Authentication required" (JSON-RPC
 * -32000) becomes E_AGENT_AUTH naming the agent's login methods from `initialize`;
 * any other error answer becomes E_AGENT_PROTOCOL. Anything else is returned unchanged.
 */
export function sessionNewError(err: unknown, init: acp.InitializeResponse, command: readonly string[]): unknown {
  if (!(err instanceof acp.RequestError)) return err;
  if (err.code === -32000 || /auth/i.test(err.message)) {
    const methods = (init.authMethods ?? []).map((method) => describeAuthMethod(method, command[0] ?? ""));
    return agentAuthRequired(command, methods, err);
  }
  return agentProtocolError(command, "session/new", err);
}

function describeAuthMethod(method: acp.AuthMethod, program: string): string {
  const description = method.description ? ` (${method.description})` : "";
  if ("type" in method && method.type === "terminal") {
    const args = method.args?.length ? ` ${method.args.join(" ")}` : "";
    return `${method.name} [${method.id}]: run \`${program}${args}\` in a terminal${description}`;
  }
  return `${method.name} [${method.id}]${description}`;
}

function sliceLines(content: string, line: number | undefined, limit: number | undefined): string {
  if (line === undefined && limit === undefined) return content;
  const lines = content.split("\n");
  const start = Math.max(0, (line ?? 1) - 1);
  return lines.slice(start, limit === undefined ? undefined : start + limit).join("\n");
}

function fileError(err: unknown, path: string): acp.RequestError {
  const code = (err as { code?: unknown }).code;
  if (code === "ENOENT") return acp.RequestError.resourceNotFound(path);
  return acp.RequestError.internalError({ path, code }, (err as Error).message);
}
