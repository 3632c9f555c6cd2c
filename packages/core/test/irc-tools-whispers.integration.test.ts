/**
 * Whispers and the long-lived IRC tools link (`culture mcp`, Claude's in-process MCP server):
 * a real daemon on the real embedded IRC server, and core's DaemonLink as the MCP servers use
 * it. While the link is connected a whisper must stay in the daemon's queue, where the
 * runner's tool-boundary hook (`RunnerContext.takeWhispers`) can deliver it at once; pushed to
 * the link it would wait for the agent's next IRC tool call, which an agent busy with shell
 * commands may never make. Whatever is still queued rides on the link's next tool result.
 */
import { afterEach, beforeAll, afterAll, describe, expect, it } from "vitest";
import { startServer } from "@culture/server";
import { DaemonLink } from "../src/irc-tools/daemon-link.js";
import type { WhisperQueue } from "../src/daemon/whisper-queue.js";
import { socketPath } from "../src/paths.js";
import { startTestDaemon, type TestDaemon } from "./helpers/daemon-harness.js";

describe("whispers with a long-lived IRC tools link", () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let d: TestDaemon | null = null;
  let link: DaemonLink | null = null;

  beforeAll(async () => {
    server = await startServer({ host: "127.0.0.1", port: 0, stateDir: null });
  });
  afterAll(async () => {
    await server?.close();
  });
  afterEach(async () => {
    link?.close();
    await d?.stop();
    d = null;
  });

  it("stay queued for the runner's hook while the link is connected, and ride on the link's next result otherwise", async () => {
    d = await startTestDaemon({ port: server.port, nick: "spark-link" });
    link = new DaemonLink("spark-link", socketPath("spark-link", d.env));
    expect((await link.request("status", {})).ok).toBe(true); // the link is connected now
    const daemon = d.daemon as unknown as { whispers: WhisperQueue; deliverWhisper(message: string, action: string): Promise<void> };

    await daemon.deliverWhisper("for the hook", "CORRECTION");
    // What a runner's PostToolUse hook / steer would take:
    expect(daemon.whispers.take()).toEqual([{ action: "CORRECTION", message: "for the hook" }]);
    expect((await link.request("status", {})).ok).toBe(true);
    expect(link.takeWhispers()).toEqual([]); // delivered once, by the hook

    await daemon.deliverWhisper("for the next tool call", "THINK_DEEPER");
    expect((await link.request("irc_channels", {})).ok).toBe(true);
    expect(link.takeWhispers()).toEqual([expect.objectContaining({ whisper_type: "THINK_DEEPER", message: "for the next tool call" })]);
    expect(daemon.whispers.take()).toEqual([]);
  });
});
