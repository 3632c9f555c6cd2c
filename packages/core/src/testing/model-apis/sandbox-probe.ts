/**
 * The sandbox suites' model script (docs/sandbox.md): on a mention containing `probe`, the
 * agent's shell tries what a sandbox must keep out — the owner's SSH key, culture's
 * credentials, a loopback server outside (directly, and through the egress proxy of
 * `network: off`) — and then reports the exit statuses on IRC with `culture channel send`;
 * anything else is answered like {@link ircReplyScript}. The checks read the probe's output
 * from the tool results the model API received ({@link probeOutput}).
 */
import { ircReplyScript, parseIrcPrompt, shQuote } from "./irc-script.js";
import type { ModelRequest, ModelScript } from "./model-request.js";

/** The probe's shell command: one `name=<exit status or HTTP code>` per attempt. */
export function sandboxProbeCommand(secretPort: number, credentialsFile = "$CULTURE_HOME/credentials/server.yaml"): string {
  return [
    `cat ~/.ssh/id_rsa; echo "ssh=$?"`,
    `cat "${credentialsFile}"; echo "creds=$?"`,
    `curl -sS -m 5 http://127.0.0.1:${secretPort}/; echo "curl=$?"`,
    `curl -sS -m 5 --noproxy '' -x "$HTTP_PROXY" -o /dev/null -w 'proxy=%{http_code} ' http://127.0.0.1:${secretPort}/; echo`,
  ].join("; ");
}

/** The script: the probe on `probe`, {@link ircReplyScript} otherwise. `secretPort()` is read when the probe runs. */
export function sandboxProbeScript(secretPort: () => number): ModelScript {
  const base = ircReplyScript();
  return (req) => {
    const prompt = parseIrcPrompt(req.userTexts.filter((t) => parseIrcPrompt(t)).at(-1) ?? "");
    if (prompt && /probe/.test(prompt.text) && req.tools.length > 0) {
      if (!req.afterToolResult) return { shell: sandboxProbeCommand(secretPort()) };
      const seen = req.toolResults.at(-1)?.output ?? "";
      if (/ssh=\d/.test(seen)) {
        const summary = (seen.match(/(ssh|creds|curl|proxy)=\S+/g) ?? []).join(" ");
        return { shell: `culture channel send ${shQuote(prompt.target)} ${shQuote(`probe reported: ${summary}`)}` };
      }
      return { text: "done" };
    }
    return base(req);
  };
}

/** The probe's output as the model saw it (the first tool result holding `ssh=`), or "". */
export function probeOutput(turns: readonly ModelRequest[]): string {
  return turns.flatMap((t) => t.toolResults.map((r) => r.output)).find((o) => /ssh=\d/.test(o)) ?? "";
}
