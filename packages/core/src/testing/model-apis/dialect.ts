/**
 * A wire API that the scripted model server speaks: it recognises its requests, normalises
 * them into a ModelRequest, and writes replies (streaming or not) and errors in its own
 * format. One file per API: anthropic-messages.ts, openai-responses.ts, openai-chat.ts, gemini.ts.
 */
import type { ServerResponse } from "node:http";
import type { ModelApiName, ModelRequest } from "./model-request.js";

/**
 * The usage a dialect put in a reply, in culture's counting (input includes the cached parts,
 * output the reasoning): what a real-CLI test compares the metered usage with.
 */
export interface ServedUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
}

/** A reply that produces model output (not a failure or a hang). */
export type ModelOutput = {
  text?: string;
  toolCall?: { name: string; input: Record<string, unknown> };
  /** The input tokens to report (cached parts included) instead of an estimate. */
  inputTokens?: number;
};

/** One wire API. */
export interface ModelApiDialect {
  api: ModelApiName;
  /** True when this dialect answers `method path` (path without the query string). */
  handles(method: string, path: string): boolean;
  /**
   * Answers requests that are not a model turn (token counting, model lists) and returns true;
   * returns false for a model turn.
   */
  answerAux?(path: string, body: unknown, res: ServerResponse): boolean;
  /** Normalises a model-turn request. */
  parse(path: string, body: unknown): ModelRequest;
  /** Writes the model's output, streaming when the request asked for it; returns the usage it reported. */
  reply(req: ModelRequest, output: ModelOutput, res: ServerResponse): ServedUsage | void;
  /** Writes an API-shaped error with this HTTP status. */
  fail(status: number, message: string, res: ServerResponse): void;
}
