/**
 * What a scripted model API hands its script, whichever wire API the agent spoke: one shape
 * for the Anthropic Messages API, the OpenAI Responses and Chat Completions APIs and the
 * Gemini API, so one script can drive every real agent CLI.
 */

/** The wire APIs a scripted model API speaks. */
export type ModelApiName = "anthropic" | "openai-responses" | "openai-chat" | "gemini";

/** One tool result found in a request's history. */
export interface ModelToolResult {
  /** The call id the result answers (the API's own id). */
  id: string;
  /** Its output as text (structured outputs are JSON-stringified). */
  output: string;
}

/** A model request, normalised. */
export interface ModelRequest {
  api: ModelApiName;
  /** The URL path the agent called (with query string). */
  path: string;
  model: string | undefined;
  stream: boolean;
  /** The system prompt / instructions, as text ("" when none). */
  system: string;
  /** The text of every user message in the history, oldest first. */
  userTexts: string[];
  /** The newest user message's text, or "" when the newest history entry is a tool result. */
  lastUserText: string;
  /** Every tool result in the history, oldest first. */
  toolResults: ModelToolResult[];
  /** True when the newest history entry is a tool result: the model is asked to go on after a tool ran. */
  afterToolResult: boolean;
  /** Names of the tools offered to the model. */
  tools: string[];
  /** The raw JSON body. */
  body: unknown;
}

/**
 * Reported input tokens: the reply's usage says the model read this many tokens (everything,
 * cached parts included) instead of an estimate from the request's size, e.g. to make an agent
 * believe its context window is 80 % full.
 */
export interface ReportedInput {
  inputTokens?: number;
}

/** What the model answers, as a script says it. */
export type ModelReply =
  /** Plain assistant text; the turn ends. */
  | ({ text: string } & ReportedInput)
  /** Call the agent's own shell tool with this command (optionally with some text before it). */
  | ({ shell: string; text?: string } & ReportedInput)
  /** Call a named tool with this input. */
  | ({ tool: string; input: Record<string, unknown>; text?: string } & ReportedInput)
  /** Answer with this HTTP status and an API-shaped error body (401, 429, 529, 500 ...). */
  | { fail: number; message?: string }
  /** Never answer (until the API is closed). */
  | { hang: true };

/** Decides the reply to one model request. */
export type ModelScript = (req: ModelRequest) => ModelReply | Promise<ModelReply>;
