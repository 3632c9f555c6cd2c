// JoinRefusals: what the daemon remembers about channels the server refused. One alert per
// channel and reason (a refusal repeated at every reconnect is not news), held until the
// daemon's alerts exist; cleared by a later join or part. The real-server test is
// packages/cli/test/join-refusals.test.ts (InspIRCd, culture start/status/doctor).
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { createLogger, JoinRefusals } from "../src/index.js";

const logger = createLogger({ level: "silent" });

describe("JoinRefusals", () => {
  it("alerts once per channel and reason, after alerts exist, and forgets a channel once joined", () => {
    const transport = new EventEmitter();
    const refusals = new JoinRefusals("spark-bot", logger);
    refusals.attach(transport as never);
    transport.emit("joinError", { channel: "#Locked", code: "473", reason: "Cannot join channel (+i)" });
    const alerts: string[] = [];
    refusals.alertWith((t) => alerts.push(t));
    expect(alerts).toEqual(["[JOIN REFUSED] spark-bot cannot join #Locked (IRC 473: Cannot join channel (+i)); nobody there can reach it. A channel operator can invite it or lift the mode; then restart it (culture stop/start)."]);
    transport.emit("joinError", { channel: "#locked", code: "473", reason: "Cannot join channel (+i)" });
    expect(alerts).toHaveLength(1);
    transport.emit("joinError", { channel: "#locked", code: "474", reason: "Cannot join channel (+b)" });
    expect(alerts).toHaveLength(2);
    expect(refusals.list()).toEqual([{ channel: "#locked", code: "474", reason: "Cannot join channel (+b)", since: expect.any(Number) }]);
    transport.emit("joined", "#LOCKED");
    expect(refusals.list()).toEqual([]);
    transport.emit("joinError", { channel: "#other", code: "timeout", reason: "the server did not confirm the JOIN within 10000 ms" });
    expect(alerts[2]).toContain("cannot join #other (the server did not confirm the JOIN within 10000 ms)");
    transport.emit("parted", "#other");
    expect(refusals.list()).toEqual([]);
  });
});
