/**
 * A scripted model API on 127.0.0.1: one small HTTP server that speaks every wire API the real
 * agent CLIs call (Anthropic Messages, OpenAI Responses and Chat Completions, Gemini) and lets
 * a test script each answer. It logs every request, can fail with any status and can hang.
 * The real agent CLIs run against it offline: the model is the only fake.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { ModelApiDialect, ModelOutput, ServedUsage } from "./dialect.js";
import type { ModelReply, ModelRequest, ModelScript } from "./model-request.js";
import { shellToolCall } from "./shell-tools.js";

/** One request the API received, in arrival order. */
export interface LoggedModelRequest {
  method: string;
  path: string;
  /** The request's headers (lower-case names), e.g. to check the API key the agent sent. */
  headers: Record<string, string | string[] | undefined>;
  /** The parsed body (undefined when it was not JSON). */
  body: unknown;
  /** The normalised request, for model turns. */
  model?: ModelRequest;
  /** What the script answered (model turns only). */
  reply?: ModelReply;
  /** The HTTP status sent (undefined while hanging). */
  status?: number;
  /** The usage the reply reported (model turns answered with output). */
  usage?: ServedUsage;
}

/** A running scripted model API. */
export interface ScriptedModelApi {
  /** `http://127.0.0.1:PORT` (no trailing slash, no path). */
  url: string;
  port: number;
  /** Every request so far, oldest first. */
  requests: LoggedModelRequest[];
  /** The model turns so far (requests a dialect parsed), oldest first. */
  turns(): ModelRequest[];
  /** The usage the API reported in its replies, summed (from request index `from` on). */
  servedUsage(from?: number): ServedUsage;
  /** Replaces the script. */
  setScript(script: ModelScript): void;
  /** Closes the server, ending hanging responses. */
  close(): Promise<void>;
}

/** Options of {@link startScriptedModelApi}. */
export interface ScriptedModelApiOptions {
  script: ModelScript;
  /** The wire APIs to speak (default: every built-in dialect). */
  dialects?: ModelApiDialect[];
  /** Port on 127.0.0.1 (default 0: a free one). */
  port?: number;
}

/** Starts a scripted model API on 127.0.0.1. */
export async function startScriptedModelApi(opts: ScriptedModelApiOptions): Promise<ScriptedModelApi> {
  const dialects = opts.dialects ?? (await import("./dialects.js")).BUILT_IN_DIALECTS;
  let script = opts.script;
  const requests: LoggedModelRequest[] = [];
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `scripted model API: ${(err as Error).message}` } }));
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = raw.length > 0 ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    const path = req.url ?? "/";
    const bare = path.split("?")[0]!;
    const entry: LoggedModelRequest = { method: req.method ?? "GET", path, headers: req.headers, body };
    requests.push(entry);
    res.on("finish", () => (entry.status = res.statusCode));

    const dialect = dialects.find((d) => d.handles(entry.method, bare));
    if (!dialect) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `scripted model API: nothing answers ${entry.method} ${bare}` } }));
      return;
    }
    if (dialect.answerAux?.(path, body, res)) return;
    const model = dialect.parse(path, body);
    entry.model = model;
    const reply = await script(model);
    entry.reply = reply;
    if ("hang" in reply) return; // left open; close() ends it
    if ("fail" in reply) {
      dialect.fail(reply.fail, reply.message ?? `scripted failure ${reply.fail}`, res);
      return;
    }
    entry.usage = dialect.reply(model, toOutput(model, reply), res) ?? undefined;
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    turns: () => requests.flatMap((r) => (r.model ? [r.model] : [])),
    servedUsage(from = 0) {
      const sum: ServedUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
      for (const r of requests.slice(from)) {
        if (!r.usage) continue;
        for (const k of Object.keys(sum) as (keyof ServedUsage)[]) sum[k] += r.usage[k];
      }
      return sum;
    },
    setScript(next) {
      script = next;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function toOutput(req: ModelRequest, reply: Exclude<ModelReply, { fail: number } | { hang: true }>): ModelOutput {
  const reported = reply.inputTokens !== undefined ? { inputTokens: reply.inputTokens } : {};
  if ("shell" in reply) return { text: reply.text, toolCall: shellToolCall(req, reply.shell), ...reported };
  if ("tool" in reply) return { text: reply.text, toolCall: { name: reply.tool, input: reply.input }, ...reported };
  return { text: reply.text, ...reported };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
