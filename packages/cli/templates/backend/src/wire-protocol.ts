/**
 * What the agent writes on stdout, one JSON object per line (agent.mjs describes the whole
 * protocol). Every line is validated here, at the boundary, so the runner only ever sees
 * well-formed messages. Replace these with your agent's messages.
 */
import { z } from "zod";

/** One line from the agent. */
export const agentLineSchema = z.discriminatedUnion("type", [
  /** The agent started and is ready for prompts. */
  z.object({ type: z.literal("ready"), session_id: z.string().min(1) }),
  /** Text the agent produced during turn `id`. */
  z.object({ type: z.literal("text"), id: z.number().int(), text: z.string() }),
  /** Turn `id` has ended. */
  z.object({ type: z.literal("done"), id: z.number().int() }),
]);

/** A validated line from the agent. */
export type AgentLine = z.infer<typeof agentLineSchema>;

/** One line to the agent. */
export type RunnerLine = { type: "prompt"; id: number; text: string } | { type: "interrupt" };

/** A line from the agent that is not valid JSON, or not a message of the protocol. */
export class AgentLineError extends Error {
  override name = "AgentLineError";
  constructor(
    readonly line: string,
    reason: string,
  ) {
    super(`the agent wrote a line that is not part of the protocol (${reason}): ${line.slice(0, 200)}`);
  }
}

/** Parses and validates one line. Throws {@link AgentLineError}. */
export function parseAgentLine(line: string): AgentLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new AgentLineError(line, "not JSON");
  }
  const result = agentLineSchema.safeParse(value);
  if (!result.success) throw new AgentLineError(line, result.error.issues.map((i) => i.message).join("; "));
  return result.data;
}

/**
 * Calls `onLine` with every non-blank line of a byte stream: decoded as a stream (a UTF-8
 * character may span two chunks), the last partial line kept until its newline arrives.
 */
export function readLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  const decoder = new TextDecoder();
  let partial = "";
  stream.on("data", (chunk: Buffer) => {
    partial += decoder.decode(chunk, { stream: true });
    const lines = partial.split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) if (line.trim()) onLine(line);
  });
}
