/**
 * The supervisor's evaluator on an ACP agent: every evaluation is a short-lived session of
 * its own (spawn, initialize, session/new, one prompt, kill), so the supervisor never shares
 * a context with the agent it watches. The evaluator may not touch files: it advertises no
 * file system and refuses every permission request.
 */
import * as acp from "@agentclientprotocol/sdk";
import type { EvaluationRequest, Evaluator, EvaluatorContext } from "@culture/core";
import { AcpAgentProcess } from "./acp-agent-process.js";
import { ACP_PROTOCOL_VERSION, clientCapabilities, createAcpClient, sessionNewError } from "./acp-client.js";
import type { AcpOptions } from "./acp-options.js";
import { selectModel } from "./model-selection.js";

/** Tunables of {@link createAcpEvaluator}. */
export interface AcpEvaluatorSettings {
  /** How long to wait for the agent to exit at the end of an evaluation. Default 2000 ms. */
  stopGraceMs?: number;
}

/** Creates an evaluator that asks a fresh session of the ACP agent for each verdict. */
export function createAcpEvaluator(ctx: EvaluatorContext<AcpOptions>, settings: AcpEvaluatorSettings = {}): Evaluator {
  const logger = ctx.logger.child("acp-evaluator");
  const graceMs = settings.stopGraceMs ?? 2_000;
  const live = new Set<AcpAgentProcess>();

  return {
    async evaluate(request: EvaluationRequest): Promise<string> {
      request.signal.throwIfAborted();
      const command = ctx.options.acp_command;
      let sessionId: string | null = null;
      let text = "";
      const proc = await AcpAgentProcess.spawn({
        command,
        cwd: ctx.directory,
        env: { ...ctx.env, ...ctx.options.env },
        logger,
        client: createAcpClient({
          directory: ctx.directory,
          permission: "deny",
          fileSystem: false,
          logger,
          onUpdate: ({ sessionId: id, update }) => {
            if (id === sessionId && update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") {
              text += update.content.text;
            }
          },
        }),
      });
      live.add(proc);
      const onAbort = () => {
        if (sessionId) void proc.notifyCancel(sessionId);
        void proc.shutdown(graceMs);
      };
      request.signal.addEventListener("abort", onAbort, { once: true });
      if (request.signal.aborted) onAbort();
      try {
        const init = await proc.request(acp.methods.agent.initialize, {
          protocolVersion: ACP_PROTOCOL_VERSION,
          clientCapabilities: clientCapabilities(false),
          clientInfo: { name: "culture-supervisor", version: "1" },
        });
        try {
          const session = await proc.request(acp.methods.agent.session.new, { cwd: ctx.directory, mcpServers: [] });
          sessionId = session.sessionId;
          await selectModel(proc, session.sessionId, session.configOptions ?? [], ctx.model, logger);
        } catch (err) {
          throw sessionNewError(err, init, command);
        }
        const prompt = request.systemPrompt ? `${request.systemPrompt}\n\n${request.prompt}` : request.prompt;
        await proc.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: prompt }] });
        // Let updates sent before the response reach the handler (see AcpRunner.runTurn).
        await new Promise((resolve) => setImmediate(resolve));
        request.signal.throwIfAborted();
        return text.trim();
      } catch (err) {
        request.signal.throwIfAborted();
        throw err;
      } finally {
        request.signal.removeEventListener("abort", onAbort);
        await proc.shutdown(graceMs);
        live.delete(proc);
      }
    },
    async close(): Promise<void> {
      await Promise.all([...live].map((proc) => proc.shutdown(graceMs)));
    },
  };
}
