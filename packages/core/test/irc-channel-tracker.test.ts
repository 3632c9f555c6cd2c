import { describe, expect, it } from "vitest";
import { ChannelTracker } from "../src/irc/channel-tracker.js";
import { ircLower } from "../src/irc/case-mapping.js";

describe("ChannelTracker", () => {
  it("a configured channel stays wanted through a kick; a later one does not; a part forgets both", () => {
    const t = new ChannelTracker((s) => ircLower(s, "ascii"));
    t.configure("#Conf");
    t.selfJoined("#Conf", "bot");
    t.selfJoined("#Later", "bot");
    expect(t.wantedNames()).toEqual(["#Conf", "#Later"]);
    for (const key of ["#conf", "#later"]) {
      expect(t.selfLeft(key)).toBe(key === "#conf" ? "#Conf" : "#Later");
      t.dropUnlessConfigured(key);
    }
    expect(t.joinedNames()).toEqual([]);
    expect(t.wantedNames()).toEqual(["#Conf"]);
    t.unwant("#conf");
    t.dropUnlessConfigured("#conf");
    expect(t.wantedNames()).toEqual([]);
  });

  it("keeps members through NAMES, joins, renames, parts and quits", () => {
    const t = new ChannelTracker((s) => s.toLowerCase());
    t.selfJoined("#c", "bot");
    t.names("#C", "@Alice +bob carol!u@h", new Set(["@", "+"]));
    t.memberJoined("#c", "dave");
    t.memberRenamed("BOB", "robert");
    t.memberRenamed("nobody", "someone"); // not listed: not added
    t.memberLeft("#c", "carol");
    t.memberQuit("DAVE");
    t.selfRenamed("bot", "bot_");
    expect(t.info()).toEqual([{ channel: "#c", members: 3 }]);
    t.onDisconnect();
    expect(t.info()).toEqual([]);
    expect(t.wantedNames()).toEqual(["#c"]);
  });

  it("recomputes its keys when the case mapping changes", () => {
    let mapping = "ascii";
    const t = new ChannelTracker((s) => ircLower(s, mapping));
    t.configure("#A[b]");
    t.selfJoined("#A[b]", "bot");
    expect(t.isJoined("#a{b}")).toBe(false);
    mapping = "rfc1459";
    t.rekey();
    expect(t.isJoined("#a{b}")).toBe(true);
    expect(t.isWanted("#a{b}")).toBe(true);
    expect(t.joinedName("#a{b}")).toBe("#A[b]");
  });
});
