/**
 * irc-framework's node:tls is loaded by the first TLS connection, not when core is
 * (src/irc/shims/tls-lazy.ts, issue 30). A fresh node loads core's build (npm run build
 * first) as a daemon does, connects to a real ngIRCd in plain text, then over TLS (the
 * shim is in the build only, so the transport's own tests, which run core's sources, do not
 * reach it): which of node's modules are loaded after each step, and both connections work.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startIrcServer, type RunningIrcServer } from "../src/testing/irc-servers.js";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
let server: RunningIrcServer;

beforeAll(async () => {
  server = await startIrcServer("ngircd", { tls: true });
});
afterAll(() => server?.stop());

describe.skipIf(!existsSync(join(dist, "index.js")))("core's build and node:tls", () => {
  it("loads node:tls with the first TLS connection, not with core or a plain one", () => {
    const probe = `
      const tlsLoaded = () => process.moduleLoadList.includes("NativeModule tls");
      const core = await import(${JSON.stringify(pathToFileURL(join(dist, "index.js")).href)});
      const steps = { imported: tlsLoaded() };
      const connect = async (nick, port, tls) => {
        const server = { name: "t", host: "127.0.0.1", port, tls, tls_verify: false };
        const t = new core.IrcTransport({ server, nick, channels: ["#lazy"], logger: core.silentLogger });
        await t.connect();
        const joined = t.isJoined("#lazy");
        await t.close();
        return joined;
      };
      steps.plainJoined = await connect("plain-agent", ${server.port}, false);
      steps.afterPlain = tlsLoaded();
      steps.tlsJoined = await connect("tls-agent", ${server.tlsPort}, true);
      steps.afterTls = tlsLoaded();
      console.log(JSON.stringify(steps));
    `;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", probe], { encoding: "utf8", env: { PATH: process.env.PATH ?? "" } });
    expect(JSON.parse(out.trim().split("\n").pop()!)).toEqual({ imported: false, plainJoined: true, afterPlain: false, tlsJoined: true, afterTls: true });
  });
});
