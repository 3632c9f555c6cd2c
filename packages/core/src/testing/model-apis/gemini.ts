/**
 * The Gemini API as Gemini CLI calls it (`GOOGLE_GEMINI_BASE_URL`): model turns are
 * `POST /v1beta/models/<m>:streamGenerateContent?alt=sse`; `:generateContent` carries the CLI's
 * JSON helper calls (the model router, the next-speaker check, loop detection), which are
 * answered here from their response schema so the CLI goes on (the router picks the fast
 * model, the next speaker is the user) and never reach the script; `:countTokens` is counted.
 * A `:generateContent` without a JSON schema is a model turn like any other.
 */
import type { ServerResponse } from "node:http";
import type { ModelApiDialect, ModelOutput, ServedUsage } from "./dialect.js";
import type { ModelRequest, ModelToolResult } from "./model-request.js";
import { startSse, writeJsonError, writeSse } from "./sse.js";

interface Part {
  text?: string;
  thought?: boolean;
  functionCall?: { name?: string; args?: unknown; id?: string };
  functionResponse?: { name?: string; response?: unknown; id?: string };
}

interface Content {
  role?: string;
  parts?: Part[];
}

interface GeminiBody {
  contents?: Content[];
  systemInstruction?: Content | string;
  tools?: Array<{ functionDeclarations?: Array<{ name?: string }> }>;
  generationConfig?: { responseMimeType?: string; responseJsonSchema?: unknown; responseSchema?: unknown };
}

const PATH = /\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/;

/** The Gemini API dialect. */
export const geminiDialect: ModelApiDialect = {
  api: "gemini",

  handles(method, path) {
    return method === "POST" && PATH.test(path);
  },

  answerAux(path, raw, res) {
    const method = PATH.exec(path.split("?")[0]!)?.[2];
    const body = (raw ?? {}) as GeminiBody;
    if (method === "countTokens") {
      const chars = JSON.stringify(body.contents ?? []).length;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ totalTokens: Math.ceil(chars / 4) }));
      return true;
    }
    const schema = body.generationConfig?.responseJsonSchema ?? body.generationConfig?.responseSchema;
    if (method === "generateContent" && (schema || body.generationConfig?.responseMimeType === "application/json")) {
      const text = JSON.stringify(schema ? sampleFromSchema(schema, "") : {});
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(response(modelName(path), { text }, undefined, { promptTokenCount: 10, candidatesTokenCount: 5, cachedContentTokenCount: 0, totalTokenCount: 15 })));
      return true;
    }
    return false;
  },

  parse(path, raw) {
    const body = (raw ?? {}) as GeminiBody;
    const contents = Array.isArray(body.contents) ? body.contents : [];
    const userTexts: string[] = [];
    const toolResults: ModelToolResult[] = [];
    for (const content of contents) {
      if (content.role === "model") continue;
      const parts = content.parts ?? [];
      for (const part of parts) {
        if (part.functionResponse) {
          const output = part.functionResponse.response;
          toolResults.push({ id: part.functionResponse.id ?? part.functionResponse.name ?? "", output: typeof output === "string" ? output : JSON.stringify(output) });
        }
      }
      const text = partsText(parts);
      if (parts.some((p) => typeof p.text === "string") && !parts.some((p) => p.functionResponse)) userTexts.push(text);
    }
    const last = contents.at(-1);
    const lastParts = last?.role === "model" ? [] : (last?.parts ?? []);
    const afterToolResult = lastParts.some((p) => p.functionResponse);
    const system = typeof body.systemInstruction === "string" ? body.systemInstruction : partsText(body.systemInstruction?.parts ?? []);
    const request: ModelRequest = {
      api: "gemini",
      path,
      model: modelName(path),
      stream: path.includes(":streamGenerateContent"),
      system,
      userTexts,
      lastUserText: afterToolResult || !last || last.role === "model" ? "" : partsText(lastParts),
      toolResults,
      afterToolResult,
      tools: (body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name ?? "")).filter(Boolean),
      body: raw,
    };
    return request;
  },

  reply(req, output, res) {
    const model = req.model ?? "scripted-model";
    const usage = usageOf(req, output);
    const served: ServedUsage = { input: usage.promptTokenCount, output: usage.candidatesTokenCount, cacheRead: usage.cachedContentTokenCount, cacheWrite: 0, reasoning: 0 };
    if (!req.stream) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(response(model, output, "STOP", usage)));
      return served;
    }
    startSse(res);
    // Text first, then the call (if any) with the finish reason, as the real API streams them;
    // every chunk carries the usage so far, the last one the whole.
    if (output.text && output.toolCall) writeSse(res, response(model, { text: output.text }, undefined, { ...usage, candidatesTokenCount: 1, totalTokenCount: usage.promptTokenCount + 1 }));
    writeSse(res, response(model, output.toolCall ? { toolCall: output.toolCall } : output, "STOP", usage));
    res.end();
    return served;
  },

  fail(status, message, res) {
    writeJsonError(res, status, { error: { code: status, message, status: errorStatus(status) } });
  },
};

/** Gemini's usageMetadata for a reply: the prompt count includes the cached part; no thoughts (the scripted model does not think). */
function usageOf(req: ModelRequest, output: ModelOutput) {
  const promptTokenCount = Math.max(1, Math.ceil(JSON.stringify((req.body as { contents?: unknown } | undefined)?.contents ?? "").length / 4));
  const candidatesTokenCount = Math.max(1, Math.ceil(JSON.stringify(output).length / 4));
  const cachedContentTokenCount = Math.floor(promptTokenCount / 4);
  return { promptTokenCount, candidatesTokenCount, cachedContentTokenCount, totalTokenCount: promptTokenCount + candidatesTokenCount };
}

function response(model: string, output: ModelOutput, finishReason: string | undefined, usageMetadata: ReturnType<typeof usageOf>) {
  const parts: Part[] = [];
  if (output.text) parts.push({ text: output.text });
  if (output.toolCall) parts.push({ functionCall: { name: output.toolCall.name, args: output.toolCall.input } });
  return {
    candidates: [{ content: { role: "model", parts }, index: 0, ...(finishReason ? { finishReason } : {}) }],
    usageMetadata,
    modelVersion: model,
  };
}

function modelName(path: string): string {
  return PATH.exec(path.split("?")[0]!)?.[1] ?? "scripted-model";
}

function partsText(parts: Part[]): string {
  return parts
    .filter((p) => typeof p.text === "string" && !p.thought)
    .map((p) => p.text)
    .join("");
}

/**
 * A value that fits a JSON schema, chosen so Gemini CLI's helper calls let it go on: the
 * next speaker is the user, the router picks the fast model, confidences are 0.
 */
function sampleFromSchema(schema: unknown, key: string): unknown {
  const s = (schema ?? {}) as { type?: string | string[]; enum?: unknown[]; properties?: Record<string, unknown>; minimum?: number };
  if (Array.isArray(s.enum) && s.enum.length > 0) {
    const preferred = ["user", "flash"].find((v) => s.enum!.includes(v));
    return preferred ?? s.enum[0];
  }
  const type = (Array.isArray(s.type) ? s.type[0] : s.type)?.toLowerCase();
  if (type === "object" || s.properties) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s.properties ?? {})) out[k] = sampleFromSchema(v, k);
    return out;
  }
  if (type === "array") return [];
  if (type === "number" || type === "integer") {
    // A loop detector's confidence 0: no loop. Any other number the lowest allowed, at least 1:
    // the numerical router's complexity score (1..100, checked after the call) picks the fast model.
    if (/confidence/i.test(key)) return 0;
    return typeof s.minimum === "number" ? s.minimum : 1;
  }
  if (type === "boolean") return false;
  return key === "reasoning" ? "scripted" : "";
}

function errorStatus(status: number): string {
  if (status === 400) return "INVALID_ARGUMENT";
  if (status === 401) return "UNAUTHENTICATED";
  if (status === 403) return "PERMISSION_DENIED";
  if (status === 429) return "RESOURCE_EXHAUSTED";
  if (status === 503 || status === 529) return "UNAVAILABLE";
  return "INTERNAL";
}
