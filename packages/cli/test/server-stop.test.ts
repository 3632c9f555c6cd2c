// `culture server stop` warns when IRC clients (agents, people) are still connected, and says
// how to stop the agents; with nobody connected it stops quietly. The built CLI as a subprocess.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { connectRawClient, freePort } from "@culture/core/testing";

const CLI = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const home = mkdtempSync(join(tmpdir(), "culture-server-stop-"));

function culture(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, CULTURE_HOME: home, XDG_RUNTIME_DIR: "" } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

afterAll(async () => {
  await culture("server", "stop", "--timeout", "2");
  rmSync(home, { recursive: true, force: true });
});

it("warns when clients are connected, and is quiet when nobody is", async () => {
  const port = await freePort();
  expect((await culture("server", "start", "--open", "--port", String(port))).code).toBe(0);
  const alice = await connectRawClient(port, "alice");
  const stopped = await culture("server", "stop", "--timeout", "2");
  await alice.close().catch(() => undefined);
  expect(stopped.code).toBe(0);
  expect(stopped.stderr).toContain("warning: 1 IRC client is connected to the server (agents among them lose IRC and keep retrying).");
  expect(stopped.stderr).toContain("To stop the agents too: culture stop --all");

  expect((await culture("server", "start", "--open", "--port", String(port))).code).toBe(0);
  const quiet = await culture("server", "stop", "--timeout", "2");
  expect(quiet.code).toBe(0);
  expect(quiet.stderr).toBe("");
});
