/**
 * `culture console` in a real browser: Debian's chromium (/usr/bin/chromium, installed by
 * scripts/install-os-tools.sh) driven by playwright-core, against the built CLI's console and
 * two real detached daemons on the real embedded IRC server with accounts: spark-echo (echo
 * backend) and spark-gate (the approval fixture backend: `ask run <cmd>` asks, and runs the
 * command only when allowed). alice is an operator (`operators: [alice]`), bob is not; both
 * are accounts of the server's scrypt store. One server, one fleet, one console, one browser.
 * CONSOLE_SCREENSHOTS=dir keeps the screenshots (docs/images/console-*.png come from here).
 * Build first (`npm run build`).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { get as httpsGet } from "node:https";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { AccountStore, startServer, type IrcServer } from "@culture/server";
import { embeddedAccountStorePath } from "@culture/core";
import { connectRawClient, parseRawLine, type RawIrcClient } from "@culture/core/testing";
import { ECHO_BACKEND, eventually, MAIN, makeFleet, type Fleet } from "./fleet-harness.js";
import { fileURLToPath } from "node:url";

const APPROVAL_BACKEND = fileURLToPath(new URL("../../core/test/fixtures/approval-backend", import.meta.url));
const CHROMIUM = process.env.CULTURE_CHROMIUM ?? "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const REQUEST_LINE = /^\[APPROVAL ([0-9]+)\] wants to /;

let server: IrcServer;
let fleet: Fleet;
let alice: RawIrcClient;
let consoleProc: ChildProcess;
let url: string;
let token: string;
let browser: Browser;
let aliceCtx: BrowserContext;
let page: Page;
const shots = process.env.CONSOLE_SCREENSHOTS;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no chromium at ${CHROMIUM}: run scripts/install-os-tools.sh (apt-get install chromium)`);
  const port = await freePort();
  fleet = makeFleet(port, []);
  fleet.writeConfig(
    [
      { nick: "spark-echo", agent: ECHO_BACKEND, directory: fleet.home, channels: ["#test"] },
      { nick: "spark-gate", agent: APPROVAL_BACKEND, directory: fleet.home, channels: ["#test"], permissions: { mode: "ask", timeout_seconds: 300 } },
    ],
    { operators: ["alice"] },
  );
  const store = new AccountStore(embeddedAccountStorePath({ CULTURE_HOME: fleet.home }));
  store.ensure();
  await store.add("alice", "alice-pw", "human");
  await store.add("bob", "bob-pw", "human");
  server = await startServer({ port, stateDir: null, accountsFile: store.path });
  const start = await fleet.culture(["start", "--all"]);
  expect(start.code, start.stderr).toBe(0);
  alice = await connectRawClient(port, "alice", { password: "alice:alice-pw" });
  await alice.join("#test");

  consoleProc = spawn(process.execPath, [MAIN, "--config", fleet.configPath, "console", "--port", "0", "--interval", "0.3"], { env: fleet.env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  consoleProc.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
  consoleProc.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
  const m = await eventually(() => /culture console on (\S+)\nOne-time login token .*: (\S+)/.exec(out), `the console's URL and token (stderr: ${err})`);
  url = m![1]!;
  token = m![2]!;
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);

  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  aliceCtx = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  page = await aliceCtx.newPage();
  if (shots) mkdirSync(shots, { recursive: true });
});

afterAll(async () => {
  await browser?.close().catch(() => undefined);
  consoleProc?.kill("SIGTERM");
  await alice?.close().catch(() => undefined);
  await fleet?.culture(["stop", "--all"]).catch(() => undefined);
  await fleet?.cleanup();
  await server?.close();
});

const shot = async (p: Page, name: string) => {
  if (shots) await p.screenshot({ path: join(shots, `console-${name}.png`), fullPage: true });
};
const said = (nick: string, text: RegExp) => (line: string) => {
  const p = parseRawLine(line);
  return p.command === "PRIVMSG" && p.nick === nick && text.test(p.params[1] ?? "");
};
/** Posts to the console from the page's own origin (as the page's fetch would), returning the status and body. */
const post = (p: Page, path: string, body: unknown, headers: Record<string, string>) =>
  p.evaluate(
    async ([path, body, headers]) => {
      const res = await fetch(path as string, { method: "POST", headers: headers as Record<string, string>, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as { error?: string } };
    },
    [path, body, headers] as const,
  );

describe("culture console in chromium", { timeout: 120_000 }, () => {
  it("refuses everything without a session, a CSRF-less change, a foreign origin, an agent's account, and a spent token", async () => {
    const plain = await fetch(`${url}api/fleet`);
    expect(plain.status).toBe(401);
    const pause = await fetch(`${url}api/agents/spark-echo/pause`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(pause.status).toBe(401);
    const stream = await fetch(`${url}api/agents/spark-echo/stream`);
    expect(stream.status).toBe(401);
    // A form post (what a cross-site page can send without asking) is refused before anything else.
    const form = await fetch(`${url}api/login`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "token=x" });
    expect(form.status).toBe(415);
    const foreign = await fetch(`${url}api/login`, { method: "POST", headers: { "content-type": "application/json", origin: "http://evil.example" }, body: JSON.stringify({ account: "alice", password: "alice-pw" }) });
    expect(foreign.status).toBe(403);
    // An agent's account (its generated credentials) cannot log in.
    const agentCreds = JSON.parse(readFileSync(join(fleet.home, "credentials", "spark-echo.json"), "utf8")) as { account: string; password: string };
    const asAgent = await fetch(`${url}api/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(agentCreds) });
    expect(asAgent.status).toBe(401);
    expect(((await asAgent.json()) as { error: string }).error).toMatch(/agent's account/);
    const wrong = await fetch(`${url}api/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ account: "alice", password: "nope" }) });
    expect(wrong.status).toBe(401);
    // The token works once.
    const first = await fetch(`${url}api/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token }) });
    expect(first.status).toBe(200);
    const cookie = first.headers.get("set-cookie")!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    const again = await fetch(`${url}api/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token }) });
    expect(again.status).toBe(401);
    // With the session but without its CSRF token: refused, and the agent is not paused.
    const session = cookie.split(";")[0]!;
    const noCsrf = await fetch(`${url}api/agents/spark-echo/pause`, { method: "POST", headers: { "content-type": "application/json", cookie: session }, body: "{}" });
    expect(noCsrf.status).toBe(403);
    expect(((await noCsrf.json()) as { error: string }).error).toMatch(/CSRF/);
    const badCsrf = await fetch(`${url}api/agents/spark-echo/pause`, { method: "POST", headers: { "content-type": "application/json", cookie: session, "x-csrf-token": "guess" }, body: "{}" });
    expect(badCsrf.status).toBe(403);
    const status = JSON.parse((await fleet.culture(["status", "--json"])).stdout) as Array<{ nick: string; paused: boolean }>;
    expect(status.find((s) => s.nick === "spark-echo")?.paused).toBe(false);
  });

  it("renders the fleet after an account login, and pauses and resumes an agent with its buttons", async () => {
    await page.goto(url);
    await page.fill("#login-account input[name=account]", "alice");
    await page.fill("#login-account input[name=password]", "alice-pw");
    await page.click("#login-account button");
    await page.waitForSelector('#fleet tr[data-nick="spark-echo"][data-state="idle"]');
    await page.waitForSelector('#fleet tr[data-nick="spark-gate"][data-state="idle"]');
    expect(await page.textContent("#who")).toBe("alice · operator");
    await shot(page, "fleet");
    await page.click('#fleet tr[data-nick="spark-echo"] button[data-action=pause]');
    await page.waitForSelector('#fleet tr[data-nick="spark-echo"][data-state="paused"]');
    await page.click('#fleet tr[data-nick="spark-echo"] button[data-action=resume]');
    await page.waitForSelector('#fleet tr[data-nick="spark-echo"][data-state="idle"]');
    // Restart from the page (culture restart): a new daemon, idle again.
    const pidOf = async () => (JSON.parse((await fleet.culture(["status", "--json"])).stdout) as Array<{ nick: string; pid: number | null }>).find((s) => s.nick === "spark-echo")?.pid;
    const before = await pidOf();
    await page.click('#fleet tr[data-nick="spark-echo"] button[data-action=restart]');
    await page.waitForSelector("#status-line:has-text('restart sent to spark-echo')", { timeout: 90_000 });
    await page.waitForSelector('#fleet tr[data-nick="spark-echo"][data-state="idle"]', { timeout: 30_000 });
    const after = await pidOf();
    expect(after).toBeTruthy();
    expect(after).not.toBe(before);
    // Stop, then start again, from the page (culture stop's control path; culture start).
    await page.click('#fleet tr[data-nick="spark-echo"] button[data-action=stop]');
    await page.waitForSelector('#fleet tr[data-nick="spark-echo"][data-state="offline"]', { timeout: 30_000 });
    await page.click('#fleet tr[data-nick="spark-echo"] button[data-action=start]');
    await page.waitForSelector('#fleet tr[data-nick="spark-echo"][data-state="idle"]', { timeout: 30_000 });
  });

  it("shows a mention's transcript live on the agent's page, and hostile lines as inert text", async () => {
    await page.click('#fleet tr[data-nick="spark-echo"] a');
    await page.waitForSelector("#agent-view:not([hidden])");
    alice.send("PRIVMSG #test :@spark-echo tool ls -la /tmp");
    await page.waitForSelector('#transcript li[data-kind="prompt"]:has-text("tool ls -la /tmp")');
    await page.waitForSelector('#transcript li[data-kind="tool_call"]:has-text("ls -la /tmp")');
    await page.waitForSelector('#transcript li[data-kind="reply"]:has-text("used a tool")');
    expect(await page.textContent('#transcript li[data-kind="prompt"] .meta')).toMatch(/from alice in #test \(mention\)/);

    const hostile = `@spark-echo <script>window.__xss=1</script> <img src=x onerror="window.__xss=2"> <a href="javascript:window.__xss=3">click</a>`;
    alice.send(`PRIVMSG #test :${hostile}`);
    await page.waitForSelector('#transcript li[data-kind="reply"]:has-text("<img src=x onerror")');
    const reply = page.locator('#transcript li[data-kind="reply"]').last();
    expect(await reply.locator("pre").textContent()).toContain(`<script>window.__xss=1</script> <img src=x onerror="window.__xss=2"> <a href="javascript:window.__xss=3">click</a>`);
    expect(await page.locator("#transcript script, #transcript img, #transcript a").count()).toBe(0);
    await reply.locator("pre").click();
    expect(await page.evaluate(() => (globalThis as { __xss?: number }).__xss)).toBeUndefined();
    await shot(page, "agent");
  });

  it("an approval clicked in the page runs the command once; a deny stops it; an answer on IRC clears it live", async () => {
    await page.goto(`${url}#/`);
    const ran = join(fleet.home, "ran.txt");
    alice.send(`PRIVMSG #test :@spark-gate ask run echo ran >> ${ran}`);
    const id = REQUEST_LINE.exec(parseRawLine(await alice.waitFor(said("spark-gate", REQUEST_LINE))).params[1]!)![1]!;
    const item = `#approvals li[data-nick="spark-gate"][data-id="${id}"]`;
    await page.waitForSelector(item);
    expect(await page.textContent(`${item} pre`)).toBe(`echo ran >> ${ran}`);
    await shot(page, "approvals");
    await page.click(`${item} button[data-answer=approve]`);
    await alice.waitFor(said("spark-gate", new RegExp(`^\\[APPROVAL ${id}\\] approved by alice \\(console\\)$`)));
    await alice.waitFor(said("spark-gate", /Bash allowed \(once, by alice \(console\)\)/));
    await page.waitForSelector(item, { state: "detached" });
    expect(readFileSync(ran, "utf8")).toBe("ran\n");

    const denied = join(fleet.home, "denied.txt");
    alice.send(`PRIVMSG #test :@spark-gate ask run echo no >> ${denied}`);
    const id2 = REQUEST_LINE.exec(parseRawLine(await alice.waitFor(said("spark-gate", REQUEST_LINE))).params[1]!)![1]!;
    const item2 = `#approvals li[data-nick="spark-gate"][data-id="${id2}"]`;
    await page.waitForSelector(item2);
    await page.fill(`${item2} input[data-field=reason]`, "not on a Friday");
    await page.click(`${item2} button[data-answer=deny]`);
    await alice.waitFor(said("spark-gate", new RegExp(`^\\[APPROVAL ${id2}\\] denied by alice \\(console\\): not on a Friday$`)));
    await alice.waitFor(said("spark-gate", /Bash denied by alice \(console\): not on a Friday/));
    expect(existsSync(denied)).toBe(false);
    expect(readFileSync(ran, "utf8")).toBe("ran\n");

    alice.send(`PRIVMSG #test :@spark-gate ask run true`);
    const id3 = REQUEST_LINE.exec(parseRawLine(await alice.waitFor(said("spark-gate", REQUEST_LINE))).params[1]!)![1]!;
    const item3 = `#approvals li[data-nick="spark-gate"][data-id="${id3}"]`;
    await page.waitForSelector(item3);
    alice.send(`PRIVMSG #test :@spark-gate approve ${id3}`);
    await page.waitForSelector(item3, { state: "detached" });
  });

  it("a non-operator watches but cannot decide: the buttons are off and the server refuses", async () => {
    alice.send(`PRIVMSG #test :@spark-gate ask run echo bob >> ${join(fleet.home, "bob.txt")}`);
    const id = REQUEST_LINE.exec(parseRawLine(await alice.waitFor(said("spark-gate", REQUEST_LINE))).params[1]!)![1]!;
    const bobCtx = await browser.newContext();
    const bob = await bobCtx.newPage();
    await bob.goto(url);
    await bob.fill("#login-account input[name=account]", "bob");
    await bob.fill("#login-account input[name=password]", "bob-pw");
    await bob.click("#login-account button");
    const item = `#approvals li[data-nick="spark-gate"][data-id="${id}"]`;
    await bob.waitForSelector(item);
    expect(await bob.textContent("#who")).toBe("bob · watching (not an operator)");
    expect(await bob.isDisabled(`${item} button[data-answer=approve]`)).toBe(true);
    expect(await bob.isDisabled('#fleet tr[data-nick="spark-echo"] button[data-action=pause]')).toBe(true);
    await shot(bob, "watcher");
    // The page's own request with bob's session and CSRF token: the server says no.
    const csrf = await bob.evaluate(async () => ((await (await fetch("/api/me")).json()) as { csrf: string }).csrf);
    const approve = await post(bob, `/api/agents/spark-gate/approvals/${id}`, { answer: "approve" }, { "content-type": "application/json", "x-csrf-token": csrf });
    expect(approve.status).toBe(403);
    expect(approve.body.error).toMatch(/bob is not an operator/);
    const pause = await post(bob, "/api/agents/spark-echo/pause", {}, { "content-type": "application/json", "x-csrf-token": csrf });
    expect(pause.status).toBe(403);
    // Still pending; nothing ran.
    const list = JSON.parse((await fleet.culture(["approvals", "list", "spark-gate", "--json"])).stdout) as Array<{ id: string }>;
    expect(list.map((p) => p.id)).toContain(id);
    expect(existsSync(join(fleet.home, "bob.txt"))).toBe(false);
    await bobCtx.close();
    await fleet.culture(["approvals", "deny", "spark-gate", id, "cleanup"]);
  });
  it("serves beyond loopback only over TLS: a clear error without a certificate, HTTPS with one", async () => {
    const plain = await fleet.culture(["console", "--host", "0.0.0.0", "--port", "0"]);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/culture console serves 0\.0\.0\.0 only over TLS/);
    expect(plain.stderr).toMatch(/--tls-cert cert\.pem --tls-key key\.pem/);
    const half = await fleet.culture(["console", "--host", "0.0.0.0", "--port", "0", "--tls-cert", "x.pem"]);
    expect(half.code).toBe(2);
    expect(half.stderr).toMatch(/--tls-cert and --tls-key go together/);
    const cert = join(fleet.home, "cert.pem");
    const key = join(fleet.home, "key.pem");
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], { stdio: "ignore" });
    const tls = spawn(process.execPath, [MAIN, "--config", fleet.configPath, "console", "--host", "127.0.0.1", "--port", "0", "--tls-cert", cert, "--tls-key", key], { env: fleet.env, stdio: ["ignore", "pipe", "pipe"] });
    try {
      let out = "";
      tls.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
      const httpsUrl = (await eventually(() => /culture console on (https:\S+)/.exec(out), "the HTTPS console's URL"))![1]!;
      const res = await new Promise<{ status: number; csp: string }>((resolve, reject) => {
        httpsGet(`${httpsUrl}api/fleet`, { ca: readFileSync(cert) }, (r) => {
          r.resume();
          resolve({ status: r.statusCode!, csp: String(r.headers["content-security-policy"]) });
        }).on("error", reject);
      });
      expect(res.status).toBe(401);
      expect(res.csp).toMatch(/script-src 'self'/);
    } finally {
      tls.kill("SIGTERM");
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
