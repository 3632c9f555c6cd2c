#!/usr/bin/env node
// A stand-in agent, so this backend works before you point it at a real agent CLI.
// Set `command` in the agent's config (agents.yaml) to run your real agent instead, and
// change src/wire-protocol.ts and src/agent-cli-runner.ts to speak its protocol.
//
// Protocol: newline-delimited JSON on stdin/stdout; stderr is free text (logged by the runner).
//   agent -> runner   {"type":"ready","session_id":"..."}             once, at startup
//   runner -> agent   {"type":"prompt","id":1,"text":"..."}           one user turn
//   agent -> runner   {"type":"text","id":1,"text":"..."}             any number per turn
//                     {"type":"done","id":1}                          the turn has ended
//   runner -> agent   {"type":"interrupt"}                            end the current turn now
// EOF on stdin: exit 0.
//
// `--print` is the one-shot mode the supervisor's evaluator uses: read the whole prompt on
// stdin, print one answer on stdout, exit. This stand-in always answers "OK" (nothing to correct).
import { randomUUID } from "node:crypto";

const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};

if (args.includes("--print")) {
  process.stdin.resume();
  process.stdin.on("end", () => process.stdout.write("OK\n"));
} else {
  const sessionId = option("--resume") ?? `stand-in-${randomUUID()}`;
  const model = option("--model");
  let current = null;

  const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
  const handle = (line) => {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      process.stderr.write(`stand-in agent: ignoring a line that is not JSON: ${line}\n`);
      return;
    }
    if (message.type === "interrupt" && current !== null) {
      send({ type: "done", id: current });
      current = null;
    } else if (message.type === "prompt") {
      current = message.id;
      const who = model ? ` (${model})` : "";
      send({ type: "text", id: message.id, text: `stand-in agent${who} heard: ${message.text}` });
      send({ type: "done", id: message.id });
      current = null;
    }
  };

  const decoder = new TextDecoder();
  let partial = "";
  process.stdin.on("data", (chunk) => {
    partial += decoder.decode(chunk, { stream: true });
    const lines = partial.split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) if (line.trim()) handle(line);
  });
  process.stdin.on("end", () => process.exit(0));
  send({ type: "ready", session_id: sessionId });
}
