/**
 * The HTTP side of `culture console`, on hono (a small, well-kept framework with a Node
 * adapter): the page (plain HTML/CSS/JS from `console-ui/`, no build step), a JSON API and two
 * server-sent-event streams (the fleet; one agent's transcript).
 *
 * Every `/api` route but login needs a session (401 without); every change (POST) also needs
 * the session's CSRF token in `x-csrf-token`, a JSON body, and no foreign `Origin` (403); a
 * decision (approve, deny, always, pause, resume, stop) needs an operator (403 for anyone
 * else, whatever the page shows). Every response forbids scripts but the page's own (CSP), so
 * IRC text that slipped past the page's textContent would still do nothing.
 */
import { readFileSync } from "node:fs";
import { Hono, type Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { streamSSE } from "hono/streaming";
import type { ConsoleAuth, ConsoleSession } from "./console-auth.js";
import type { ConsoleAgent, FleetWatch } from "./console-fleet.js";

/** The session cookie's name. */
export const SESSION_COOKIE = "culture_console";

/** Options of {@link consoleApp}. */
export interface ConsoleAppOptions {
  auth: ConsoleAuth;
  fleet: FleetWatch;
  /** The folder of index.html, console.js, console.css. */
  uiDir: URL;
  /** True when served over TLS (the cookie gets `Secure`). */
  secure: boolean;
  /** How often an open transcript asks its daemon for new events (ms). */
  eventPollMs?: number;
}

const ACTIONS: Record<string, string> = { pause: "pause", resume: "resume", stop: "shutdown" };
const ANSWERS = new Set(["approve", "deny", "always"]);
const STATIC: Record<string, string> = { "/": "index.html", "/console.js": "console.js", "/console.css": "console.css" };
const TYPES: Record<string, string> = { html: "text/html; charset=utf-8", js: "text/javascript; charset=utf-8", css: "text/css; charset=utf-8" };
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

type Env = { Variables: { session: ConsoleSession } };

/** The console's hono app. */
export function consoleApp(o: ConsoleAppOptions): Hono<Env> {
  const app = new Hono<Env>();
  const files = new Map(Object.entries(STATIC).map(([route, name]) => [route, readFileSync(new URL(name, o.uiDir), "utf8")]));

  app.use("*", async (c, next) => {
    await next();
    c.header("Content-Security-Policy", CSP);
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "no-referrer");
    c.header("X-Frame-Options", "DENY");
    c.header("Cache-Control", "no-store");
  });

  for (const [route, name] of Object.entries(STATIC)) {
    app.get(route, (c) => c.body(files.get(route)!, 200, { "Content-Type": TYPES[name.split(".").pop()!]! }));
  }

  // Changes: JSON only (a cross-site form cannot send it without a preflight) and no foreign Origin.
  app.use("/api/*", async (c, next) => {
    if (c.req.method !== "GET") {
      if (!(c.req.header("content-type") ?? "").startsWith("application/json")) return c.json({ error: "changes must be sent as application/json" }, 415);
      const origin = c.req.header("origin");
      if (origin !== undefined && origin !== new URL(c.req.url).origin) return c.json({ error: `refused: a change from another origin (${origin})` }, 403);
    }
    await next();
  });

  app.post("/api/login", async (c) => {
    const body = await jsonBody(c);
    if (!body) return c.json({ error: "send {account, password} or {token}" }, 400);
    const result =
      typeof body.token === "string" && body.token !== ""
        ? o.auth.loginToken(body.token)
        : typeof body.account === "string" && typeof body.password === "string" && body.account !== ""
          ? await o.auth.loginAccount(body.account, body.password)
          : { ok: false as const, error: "send {account, password} or {token}" };
    if (!result.ok) return c.json({ error: result.error }, 401);
    const s = result.session;
    setCookie(c, SESSION_COOKIE, s.id, { httpOnly: true, sameSite: "Strict", path: "/", secure: o.secure, maxAge: o.auth.maxAgeSeconds });
    return c.json(me(s));
  });

  // Everything below needs a session.
  app.use("/api/*", async (c, next) => {
    const session = o.auth.session(getCookie(c, SESSION_COOKIE));
    if (!session) return c.json({ error: "not logged in" }, 401);
    if (c.req.method !== "GET" && !o.auth.csrfOk(session, c.req.header("x-csrf-token"))) return c.json({ error: "missing or wrong CSRF token (x-csrf-token)" }, 403);
    c.set("session", session);
    await next();
  });

  app.get("/api/me", (c) => c.json(me(c.get("session"))));
  app.post("/api/logout", (c) => {
    o.auth.logout(c.get("session").id);
    deleteCookie(c, SESSION_COOKIE, { path: "/" });
    return c.json({ ok: true });
  });

  app.get("/api/fleet", (c) => c.json({ agents: o.fleet.agents }));

  app.get("/api/stream", (c) =>
    streamSSE(c, async (stream) => {
      let last = "";
      const send = async (agents: ConsoleAgent[]) => {
        const data = JSON.stringify({ agents });
        if (data === last) return;
        last = data;
        await stream.writeSSE({ event: "fleet", data });
      };
      const off = o.fleet.subscribe((agents) => void send(agents).catch(() => undefined));
      stream.onAbort(off);
      await send(o.fleet.agents);
      await keepAlive(stream);
      off();
    }),
  );

  app.get("/api/agents/:nick/events", async (c) => {
    const nick = localNick(o.fleet, c.req.param("nick"));
    if (!nick) return c.json({ error: `no local agent named ${c.req.param("nick")}` }, 404);
    const fields: Record<string, number> = {};
    for (const k of ["before", "after", "limit"]) {
      const v = c.req.query(k);
      if (v !== undefined) fields[k] = Number(v);
    }
    const reply = await o.fleet.source.control(nick, "events", fields);
    if (!reply.running) return c.json({ error: `${nick} is not running` }, 409);
    if (!reply.ok) return c.json({ error: reply.error }, 400);
    return c.json(reply.data);
  });

  app.get("/api/agents/:nick/stream", (c) => {
    const nick = localNick(o.fleet, c.req.param("nick"));
    if (!nick) return c.json({ error: `no local agent named ${c.req.param("nick")}` }, 404);
    return streamSSE(c, async (stream) => {
      let after: number | null = null;
      let closed = false;
      stream.onAbort(() => {
        closed = true;
      });
      while (!closed) {
        const reply = await o.fleet.source.control(nick, "events", after === null ? { limit: 100 } : { after, limit: 500 });
        if (reply.ok && reply.data) {
          const events = (reply.data.events as Array<{ seq: number }>) ?? [];
          if (after === null || events.length) await stream.writeSSE({ event: "events", data: JSON.stringify({ events, first: reply.data.first ?? null }) });
          after = events.length ? events[events.length - 1]!.seq : (after ?? (reply.data.last as number) ?? 0);
        }
        await stream.sleep(o.eventPollMs ?? 100);
      }
    });
  });

  app.post("/api/agents/:nick/:action{pause|resume|stop}", async (c) => {
    const session = c.get("session");
    if (!session.operator) return c.json({ error: refusal(session) }, 403);
    const nick = localNick(o.fleet, c.req.param("nick"));
    if (!nick) return c.json({ error: `no local agent named ${c.req.param("nick")}` }, 404);
    const reply = await o.fleet.source.control(nick, ACTIONS[c.req.param("action")]!);
    void o.fleet.poll();
    if (!reply.running) return c.json({ error: `${nick} is not running` }, 409);
    return reply.ok ? c.json({ ok: true }) : c.json({ error: reply.error }, 400);
  });

  app.post("/api/agents/:nick/:verb{start|restart}", async (c) => {
    const session = c.get("session");
    if (!session.operator) return c.json({ error: refusal(session) }, 403);
    const agent = o.fleet.agents.find((a) => a.source === "local" && a.nick.toLowerCase() === c.req.param("nick").toLowerCase());
    if (!agent) return c.json({ error: `no local agent named ${c.req.param("nick")}` }, 404);
    if (!o.fleet.source.lifecycle) return c.json({ error: "this console cannot start agents" }, 400);
    const verb = c.req.param("verb") === "restart" ? "restart" : "start";
    if (verb === "start" && agent.state !== "offline") return c.json({ error: `${agent.nick} is ${agent.state}, not stopped` }, 409);
    if (verb === "restart" && agent.state === "offline") return c.json({ error: `${agent.nick} is not running: start it` }, 409);
    const result = await o.fleet.source.lifecycle(verb, agent.nick);
    void o.fleet.poll();
    return result.ok ? c.json({ ok: true, output: result.output }) : c.json({ error: result.output }, 400);
  });

  app.post("/api/agents/:nick/approvals/:id", async (c) => {
    const session = c.get("session");
    if (!session.operator) return c.json({ error: refusal(session) }, 403);
    const nick = localNick(o.fleet, c.req.param("nick"));
    if (!nick) return c.json({ error: `no local agent named ${c.req.param("nick")}` }, 404);
    const body = (await jsonBody(c)) ?? {};
    const answer = body.answer;
    if (typeof answer !== "string" || !ANSWERS.has(answer)) return c.json({ error: 'field "answer" must be approve, deny or always' }, 400);
    if (body.reason !== undefined && typeof body.reason !== "string") return c.json({ error: 'field "reason" must be a string' }, 400);
    const by = `${session.user} (console)`;
    const reason = answer === "deny" ? (typeof body.reason === "string" && body.reason.trim() ? body.reason.trim() : `denied by ${by}`) : undefined;
    const reply = await o.fleet.source.control(nick, "approval_answer", { approval: c.req.param("id"), answer, by, ...(reason ? { reason } : {}) });
    void o.fleet.poll();
    if (!reply.running) return c.json({ error: `${nick} is not running` }, 409);
    return reply.ok ? c.json({ ok: true, ...reply.data }) : c.json({ error: reply.error }, 400);
  });

  return app;
}

function me(s: ConsoleSession): { user: string; operator: boolean; csrf: string } {
  return { user: s.user, operator: s.operator, csrf: s.csrf };
}

function refusal(s: ConsoleSession): string {
  return `${s.user} is not an operator: only the config's operators: accounts decide (watching is fine)`;
}

/** The nick of a local agent in the fleet (as the fleet spells it), or null. */
function localNick(fleet: FleetWatch, nick: string): string | null {
  const lower = nick.toLowerCase();
  return fleet.agents.find((a) => a.source === "local" && a.nick.toLowerCase() === lower)?.nick ?? null;
}

async function jsonBody(c: Context): Promise<Record<string, unknown> | null> {
  try {
    const body = (await c.req.json()) as unknown;
    return body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Holds an SSE stream open with a comment every 15 s until the client goes. */
async function keepAlive(stream: { aborted: boolean; closed: boolean; onAbort(f: () => void): void; write(s: string): Promise<unknown> }): Promise<void> {
  let wake = () => {};
  stream.onAbort(() => wake());
  while (!stream.aborted && !stream.closed) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 15_000);
      wake = () => (clearTimeout(timer), resolve());
    });
    if (!stream.aborted && !stream.closed) await stream.write(": keep-alive\n\n");
  }
}
