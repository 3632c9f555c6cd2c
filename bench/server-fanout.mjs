#!/usr/bin/env node
// The embedded IRC server (@culture/server) against InspIRCd 3 in the same run:
//   1. registration latency: connect, NICK/USER, until 001 (sequential, BENCH_REG samples);
//   2. channel fan-out: one sender, BENCH_CLIENTS receivers in one channel, BENCH_MESSAGES
//      PRIVMSGs sent as fast as the socket takes them; time until every receiver has all.
// Each server runs in its own process (culture-ircd with --no-flood-control; InspIRCd with
// fakelag off, high thresholds and a large read buffer); the clients are raw sockets in this
// process, the same for both. Targets: registration faster than InspIRCd's,
// fan-out >= 0.5x InspIRCd's.  Run after `npm run build`:  node bench/server-fanout.mjs
import { spawn, execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";

const root = fileURLToPath(new URL("..", import.meta.url));
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 50);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 10_000);
const REG_SAMPLES = Number(process.env.BENCH_REG ?? 20);
const INSPIRCD = "/usr/sbin/inspircd";

// ---- servers -----------------------------------------------------------------------------

async function startEmbedded() {
  const main = join(root, "packages/server/dist/main.js");
  if (!existsSync(main)) throw new Error(`${main} is missing: run npm run build first`);
  // BENCH_NODE_ARGS="--cpu-prof" profiles the embedded server.
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, main, "--port", "0", "--no-state", "--no-flood-control", "--log-level", "warn"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", (code) => reject(new Error(`culture-ircd exited with ${code}`)));
  });
  return {
    name: "culture-ircd",
    port,
    stop: () => new Promise((r) => { child.once("exit", r); child.kill("SIGTERM"); }),
  };
}

async function startInspircd() {
  if (!existsSync(INSPIRCD)) throw new Error("InspIRCd is not installed: apt-get install -y inspircd");
  return startInspircdHere();
}

/**
 * InspIRCd with the test harness's settings (packages/core/src/testing/irc-servers.ts: no
 * fakelag, high thresholds, no DNS or ident) except `netbuffersize`: InspIRCd reads a client's
 * socket one netbuffer at a time and, with the harness's 10240, a sender's backlog drains at
 * about 10 KB per second, which would measure that setting rather than the server.
 */
async function startInspircdHere() {
  const dir = mkdtempSync(join(tmpdir(), "bench-inspircd-"));
  chmodSync(dir, 0o755);
  const asNobody = process.getuid?.() === 0;
  if (asNobody) {
    const uid = Number(execFileSync("id", ["-u", "nobody"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "nobody"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  const port = await freePort();
  const conf = join(dir, "inspircd.conf");
  writeFileSync(conf, [
    `<server name="inspircd.bench" description="bench" network="bench">`,
    `<admin name="bench" nick="bench" email="bench@localhost">`,
    `<bind address="127.0.0.1" port="${port}" type="clients">`,
    `<pid file="${join(dir, "inspircd.pid")}">`,
    `<dns server="127.0.0.1" timeout="1">`,
    `<connect name="main" allow="*" timeout="60" pingfreq="120" hardsendq="16M" softsendq="1M" recvq="1M"` +
      ` threshold="100000" commandrate="1000000" fakelag="no" localmax="1000" globalmax="1000" maxchans="100"` +
      ` resolvehostnames="no" useident="no" limit="100000">`,
    `<performance netbuffersize="65000" somaxconn="128" softlimit="1024" clonesonconnect="no" quietbursts="yes">`,
    ...["cap", "ircv3", "ircv3_servertime", "ircv3_msgid", "ircv3_echomessage", "ircv3_ctctags", "ircv3_batch", "chanhistory"].map((m) => `<module name="${m}">`),
    `<chanhistory maxlines="50" notice="no" bots="yes" prefixmsg="no">`,
    "",
  ].join("\n"), { mode: 0o644 });
  const argv = asNobody ? ["runuser", ["-u", "nobody", "--", INSPIRCD, "--nofork", `--config=${conf}`]] : [INSPIRCD, ["--nofork", `--config=${conf}`]];
  const child = spawn(argv[0], argv[1], { cwd: dir, detached: true, stdio: "ignore" });
  for (let i = 0; i < 200; i++) {
    try {
      const c = await Client.connect(port);
      c.destroy();
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    name: "InspIRCd",
    port,
    stop: async () => {
      try { process.kill(-child.pid, "SIGTERM"); } catch {}
      await new Promise((r) => child.once("exit", r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// ---- a minimal raw client ------------------------------------------------------------------

class Client {
  static connect(port) {
    return new Promise((resolve, reject) => {
      const s = connect({ host: "127.0.0.1", port });
      s.setNoDelay(true);
      s.once("connect", () => resolve(new Client(s)));
      s.once("error", reject);
    });
  }
  constructor(socket) {
    this.socket = socket;
    this.text = "";
    this.waiters = [];
    this.counting = null; // when set: count lines instead of keeping text
    socket.on("data", (d) => {
      if (this.counting) {
        let i = -1;
        while ((i = d.indexOf(10, i + 1)) !== -1) this.counting.n++;
        if (this.counting.n >= this.counting.target) this.counting.done();
        return;
      }
      // Answer server PINGs (once each) so slow registrations are not cut short.
      this.text = (this.text + d.toString("utf8")).replace(/^PING (.*)\r\n/gm, (_, token) => {
        socket.write(`PONG ${token}\r\n`);
        return "";
      });
      for (const w of [...this.waiters]) w();
    });
    socket.on("error", () => {});
  }
  send(line) {
    this.socket.write(line + "\r\n");
  }
  waitFor(re) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timeout waiting for ${re}; got:\n${this.text.slice(-500)}`)), 30_000);
      const check = () => {
        const m = re.exec(this.text);
        if (!m) return;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== check);
        this.text = this.text.slice(m.index + m[0].length);
        resolve(m);
      };
      this.waiters.push(check);
      check();
    });
  }
  async register(nick) {
    this.send(`NICK ${nick}`);
    this.send(`USER ${nick} 0 * :${nick}`);
    await this.waitFor(/ 001 /);
    await this.waitFor(/ (376|422) /);
  }
  async sync(token) {
    this.send(`PING :${token}`);
    await this.waitFor(new RegExp(`PONG [^\\r]*${token}\\r\\n`));
  }
  destroy() {
    this.socket.destroy();
  }
}

// ---- measurements --------------------------------------------------------------------------

async function registrationLatency(port, tag) {
  const samples = [];
  for (let i = 0; i < REG_SAMPLES; i++) {
    const t0 = performance.now();
    const c = await Client.connect(port);
    c.send(`NICK reg${tag}${i}`);
    c.send(`USER reg 0 * :reg`);
    await c.waitFor(/ 001 /);
    samples.push(performance.now() - t0);
    c.destroy();
  }
  samples.sort((a, b) => a - b);
  return { median: samples[Math.floor(samples.length / 2)], mean: samples.reduce((a, b) => a + b, 0) / samples.length };
}

async function fanout(port) {
  const receivers = [];
  for (let i = 0; i < CLIENTS; i++) {
    const c = await Client.connect(port);
    await c.register(`recv${i}`);
    c.send("JOIN #bench");
    await c.waitFor(/ 366 /);
    receivers.push(c);
  }
  const sender = await Client.connect(port);
  await sender.register("sender");
  sender.send("JOIN #bench");
  await sender.waitFor(/ 366 /);
  // Every receiver has seen every JOIN (and nothing else is pending) once its PING is answered.
  await Promise.all(receivers.map((c, i) => c.sync(`ready${i}`)));
  await sender.sync("ready");

  const done = Promise.all(receivers.map((c) => new Promise((resolve) => { c.counting = { n: 0, target: MESSAGES, done: resolve }; })));
  const padding = "x".repeat(40);
  const t0 = performance.now();
  const BATCH = 500;
  for (let i = 0; i < MESSAGES; i += BATCH) {
    let chunk = "";
    for (let j = i; j < Math.min(MESSAGES, i + BATCH); j++) chunk += `PRIVMSG #bench :message ${j} ${padding}\r\n`;
    if (!sender.socket.write(chunk)) await new Promise((r) => sender.socket.once("drain", r));
  }
  await done;
  const seconds = (performance.now() - t0) / 1000;
  for (const c of [...receivers, sender]) c.destroy();
  return { seconds, msgsPerSec: MESSAGES / seconds, deliveriesPerSec: (MESSAGES * CLIENTS) / seconds };
}

async function measure(start) {
  const server = await start();
  try {
    const reg = await registrationLatency(server.port, server.name === "InspIRCd" ? "i" : "c");
    const fan = await fanout(server.port);
    return { name: server.name, reg, fan };
  } finally {
    await server.stop();
  }
}

const ours = await measure(startEmbedded);
if (process.env.BENCH_ONLY_CULTURE) {
  console.log(ours);
  process.exit(0);
}
const theirs = await measure(startInspircd);
const f = (n, d = 1) => n.toFixed(d);
console.log(`server fan-out: ${CLIENTS} receivers, ${MESSAGES} messages; registration: ${REG_SAMPLES} sequential clients`);
for (const r of [ours, theirs]) {
  console.log(
    `  ${r.name.padEnd(13)} registration median ${f(r.reg.median, 2)} ms (mean ${f(r.reg.mean, 2)} ms)   ` +
      `fan-out ${f(r.fan.msgsPerSec, 0)} msg/s (${f(r.fan.deliveriesPerSec, 0)} deliveries/s, ${f(r.fan.seconds, 2)} s)`,
  );
}
const fanRatio = ours.fan.msgsPerSec / theirs.fan.msgsPerSec;
const regRatio = theirs.reg.median / ours.reg.median;
console.log(`  fan-out ratio culture/InspIRCd: ${f(fanRatio, 2)}x  (target >= 0.5x: ${fanRatio >= 0.5 ? "met" : "NOT met"})`);
console.log(`  registration: culture is ${f(regRatio, 1)}x faster  (target > 1x: ${regRatio > 1 ? "met" : "NOT met"})`);
