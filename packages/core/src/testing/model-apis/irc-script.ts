/**
 * The script most real-agent tests start from: an agent that answers every IRC prompt by
 * running `culture channel send` with its own shell tool, then ends the turn with text.
 */
import type { ModelReply, ModelRequest, ModelScript } from "./model-request.js";

/** An IRC prompt as culture writes it. */
export interface IrcPrompt {
  /** `#channel`, or the sender's nick for a DM. */
  target: string;
  sender: string;
  text: string;
  dm: boolean;
}

/** Parses the newest `[IRC @mention in #c] <nick> text` / `[IRC DM] <nick> text` prompt in a text (undefined when none). */
export function parseIrcPrompt(text: string): IrcPrompt | undefined {
  const re = /\[IRC (?:@mention in (\S+)|DM)\] <([^>]+)> ([^\n]*)/g;
  let last: IrcPrompt | undefined;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    last = { target: m[1] ?? m[2]!, sender: m[2]!, text: m[3]!, dm: m[1] === undefined };
  }
  return last;
}

/** Single-quotes a string for sh. */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Options of {@link ircReplyScript}. */
export interface IrcReplyScriptOptions {
  /** The reply text for a prompt (default: `echo: <text> (prompt N)`, N = IRC prompts in the history). */
  answer?: (prompt: IrcPrompt, req: ModelRequest, promptCount: number) => string;
  /** Handles a request first; return a reply to override the default (a failure, a hang ...). */
  before?: (req: ModelRequest) => ModelReply | undefined;
}

/**
 * Answers the newest IRC prompt with a shell call of `culture channel send <target> <answer>`,
 * and a tool result with the text `done`. Anything else (titles, system-prompt turns) gets `ok`.
 */
export function ircReplyScript(opts: IrcReplyScriptOptions = {}): ModelScript {
  return (req) => {
    const early = opts.before?.(req);
    if (early) return early;
    if (req.afterToolResult) return { text: "done" };
    const prompt = parseIrcPrompt(req.lastUserText);
    if (!prompt || req.tools.length === 0) return { text: "ok" };
    const count = req.userTexts.filter((t) => parseIrcPrompt(t)).length;
    const answer = opts.answer?.(prompt, req, count) ?? `echo: ${prompt.text} (prompt ${count})`;
    return { shell: `culture channel send ${shQuote(prompt.target)} ${shQuote(answer)}` };
  };
}
