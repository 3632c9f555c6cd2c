/** Which ended first connections are tried again (first-connect-retry.ts), table-driven. */
import { describe, expect, it } from "vitest";
import { firstConnectRetry, type FirstConnectAttempt } from "../src/irc/first-connect-retry.js";

const base: FirstConnectAttempt = { reached: true, refused: false, serverError: null, retried: 0, max: 3, minMs: 1000 };

describe("firstConnectRetry", () => {
  it.each<[string, Partial<FirstConnectAttempt>, boolean]>([
    ["closed before registration, no ERROR (our own deadline, a reset)", {}, true],
    ["the embedded server's registration deadline", { serverError: "Registration timeout" }, true],
    ["InspIRCd's", { serverError: "Closing link: (unknown@127.0.0.1) [Registration timeout]" }, true],
    ["a ping timeout", { serverError: "Closing Link: spark-a01[127.0.0.1] (Ping timeout)" }, true],
    ["a time-out spelled apart", { serverError: "Time-out" }, true],
    ["the last retry used", { retried: 3 }, false],
    ["nothing listening (never reached)", { reached: false }, false],
    ["a refused login, ban or nick", { refused: true, serverError: "Registration timeout" }, false],
    ["a wrong server password, said only in ERROR", { serverError: "Closing link: (u@127.0.0.1) [Invalid password]" }, false],
    ["access denied", { serverError: "Access denied: Bad password?" }, false],
    ["an empty ERROR", { serverError: "" }, false],
  ])("%s", (_what, attempt, retried) => {
    expect(firstConnectRetry({ ...base, ...attempt }) !== null).toBe(retried);
  });

  it("backs off, doubling with up to half again of jitter", () => {
    for (let retried = 0; retried < 3; retried++) {
      const ms = firstConnectRetry({ ...base, retried })!;
      expect(ms).toBeGreaterThanOrEqual(1000 * 2 ** retried);
      expect(ms).toBeLessThanOrEqual(1500 * 2 ** retried);
    }
  });
});
