import { describe, expect, it } from "vitest";
import { RetryBackoff, announceRetry, retryDelayMs, retryTransient, type RetryAnnouncement, type TransientFailure } from "../src/index.js";

/** A backoff that records each wait and lets it run out at once. */
class InstantBackoff extends RetryBackoff {
  readonly waits: number[] = [];
  override wait(ms: number): Promise<boolean> {
    this.waits.push(ms);
    return Promise.resolve(true);
  }
}

const transientIf = (err: unknown): TransientFailure | null => (err instanceof Error && err.message.startsWith("503") ? { reason: "overloaded", detail: err.message } : null);

describe("retryTransient (core's one retry loop for transient model failures)", () => {
  it("waits 1x, 2x, 4x the base delay (at most the cap), announcing each retry, and returns the first success", async () => {
    const announced: RetryAnnouncement[] = [];
    const backoff = new InstantBackoff();
    let calls = 0;
    const result = await retryTransient(
      async (attempt) => {
        calls++;
        if (attempt < 3) throw new Error(`503 overloaded (${attempt})`);
        return "ok";
      },
      { policy: { retries: 3, baseDelayMs: 100, maxDelayMs: 300 }, transient: transientIf, retrying: (r) => announced.push(r), backoff },
    );
    expect(result).toBe("ok");
    expect(calls).toBe(4);
    expect(backoff.waits).toEqual([100, 200, 300]);
    expect(announced).toEqual([
      { reason: "overloaded", detail: "503 overloaded (0)", attempt: 1, delayMs: 100 },
      { reason: "overloaded", detail: "503 overloaded (1)", attempt: 2, delayMs: 200 },
      { reason: "overloaded", detail: "503 overloaded (2)", attempt: 3, delayMs: 300 },
    ]);
  });

  it("throws the last failure once the retries are used up (no extra try, no extra announcement)", async () => {
    const announced: RetryAnnouncement[] = [];
    let calls = 0;
    const run = retryTransient(
      async () => {
        calls++;
        throw new Error(`503 try ${calls}`);
      },
      { policy: { retries: 2, baseDelayMs: 1, maxDelayMs: 1 }, transient: transientIf, retrying: (r) => announced.push(r) },
    );
    await expect(run).rejects.toThrow("503 try 3");
    expect(calls).toBe(3);
    expect(announced).toHaveLength(2);
  });

  it("never retries a failure that is not transient, nor any with retries: 0", async () => {
    let calls = 0;
    const fatal = retryTransient(
      async () => {
        calls++;
        throw new Error("401 invalid x-api-key");
      },
      { policy: { retries: 5, baseDelayMs: 1, maxDelayMs: 1 }, transient: transientIf, retrying: () => expect.unreachable("announced") },
    );
    await expect(fatal).rejects.toThrow("401");
    expect(calls).toBe(1);
    const none = retryTransient(
      async () => {
        calls++;
        throw new Error("503 once");
      },
      { policy: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 }, transient: transientIf, retrying: () => expect.unreachable("announced") },
    );
    await expect(none).rejects.toThrow("503 once");
    expect(calls).toBe(2);
  });

  it("a wait cut short by stop throws the failure without trying again", async () => {
    let calls = 0;
    const backoff = new RetryBackoff();
    const run = retryTransient(
      async () => {
        calls++;
        throw new Error("503 busy");
      },
      { policy: { retries: 3, baseDelayMs: 60_000, maxDelayMs: 60_000 }, transient: transientIf, backoff, interrupted: () => "interrupted" },
    );
    await new Promise((r) => setTimeout(r, 10));
    expect(backoff.cancel("stop")).toBe(true);
    await expect(run).rejects.toThrow("503 busy");
    expect(calls).toBe(1);
    expect(backoff.cancel("stop")).toBe(false); // nothing left to cut
  });

  it("a wait cut short by an interrupt returns interrupted() (or throws without it), and no retry starts", async () => {
    for (const interrupted of [() => "interrupted", undefined]) {
      let calls = 0;
      const backoff = new RetryBackoff();
      const run = retryTransient<string>(
        async () => {
          calls++;
          throw new Error("503 busy");
        },
        { policy: { retries: 3, baseDelayMs: 60_000, maxDelayMs: 60_000 }, transient: transientIf, backoff, ...(interrupted ? { interrupted } : {}) },
      );
      await new Promise((r) => setTimeout(r, 10));
      backoff.cancel("interrupt");
      if (interrupted) await expect(run).resolves.toBe("interrupted");
      else await expect(run).rejects.toThrow("503 busy");
      expect(calls).toBe(1);
    }
  });

  it("an interrupt cut of an earlier wait does not count for the next one", async () => {
    const backoff = new RetryBackoff();
    const first = backoff.wait(60_000);
    backoff.cancel("interrupt");
    expect(await first).toBe(false);
    expect(backoff.cutBy).toBe("interrupt");
    expect(await backoff.wait(1)).toBe(true);
    expect(backoff.cutBy).toBeNull();
  });
});

describe("announceRetry and retryDelayMs", () => {
  it("announces an unknown reason as a server error, blank words as 'API error', and never throws", () => {
    const announced: RetryAnnouncement[] = [];
    announceRetry((r) => announced.push(r), { reason: "unknown", detail: "  " }, null, null);
    expect(announced).toEqual([{ reason: "server_error", detail: "API error", attempt: null, delayMs: null }]);
    expect(() =>
      announceRetry(
        () => {
          throw new Error("daemon gone");
        },
        { reason: "rate_limited", detail: "429" },
        1,
        5,
      ),
    ).not.toThrow();
    announceRetry(undefined, { reason: "rate_limited", detail: "429" }, 1, 5);
  });

  it("doubles from the base and stops at the cap", () => {
    expect([0, 1, 2, 3, 4].map((n) => retryDelayMs({ baseDelayMs: 5_000, maxDelayMs: 60_000 }, n))).toEqual([5_000, 10_000, 20_000, 40_000, 60_000]);
  });
});
