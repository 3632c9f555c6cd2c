/**
 * Context care with the real OpenCode (`opencode acp`): with a context limit in its model
 * config, OpenCode sends ACP `usage_update` (`used`, `size`) after a turn; culture shows the
 * share in status and whispers one warning past `context.warn_at`. The scripted model API
 * reports the tokens the model read (`inputTokens`).
 */
import { ircReplyScript, type ModelReply } from "@culture/core/testing";
import { afterAll, describe, expect, it, vi } from "vitest";
import { idle, startRealAcpRig, type RealAcpRig } from "./real-acp-rig.js";

describe("context care, with the real OpenCode", () => {
  let rig: RealAcpRig | undefined;
  afterAll(async () => {
    await rig?.close();
  });

  it("reports the window's fill from usage_update and warns once past warn_at", async () => {
    let reported: number | undefined;
    const base = ircReplyScript();
    rig = await startRealAcpRig({
      agent: "opencode",
      contextLimit: 100_000,
      entry: { context: { warn_at: 0.7, compact_at: null } },
      script: (req) => {
        const reply = base(req) as ModelReply;
        return reported === undefined || "fail" in reply || "hang" in reply ? reply : { ...reply, inputTokens: reported };
      },
    });
    const r = rig;
    const context = () => r.d.daemon.status().context as { used_tokens: number; window_tokens: number | null; share: number | null; warnings: number } | undefined;

    r.olga.send(`PRIVMSG #test :@${r.nick} one`);
    await r.said("#test", /^echo: @spark-opencode one /, 120_000);
    await idle(r);
    await vi.waitFor(() => expect(context()).toBeDefined(), { timeout: 30_000, interval: 100 });
    expect(context()!.window_tokens).toBe(100_000);
    expect(context()!.warnings).toBe(0);

    reported = 80_000;
    r.olga.send(`PRIVMSG #test :@${r.nick} two`);
    await r.said("#test", /^echo: @spark-opencode two /, 120_000);
    await idle(r);
    await vi.waitFor(() => expect(context()!.warnings).toBe(1), { timeout: 30_000, interval: 100 });
    expect(context()!.share!).toBeGreaterThanOrEqual(0.8);
  }, 300_000);
});
