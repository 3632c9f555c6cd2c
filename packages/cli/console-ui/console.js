// culture console: the page. Plain JavaScript, no build step. Every text that came from IRC or
// an agent is put in the page with textContent (el() below), never as HTML, and no link is ever
// made from such text: a line with <script>, <img onerror> or javascript: stays text.
"use strict";

const state = { me: null, agents: [], fleetSource: null, agentSource: null, agentNick: null, oldest: null };
const $ = (id) => document.getElementById(id);

/** An element with attributes and children (strings become text nodes). */
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k.startsWith("data-")) node.setAttribute(k, v);
    else if (k === "onclick") node.addEventListener("click", v);
    else node[k] = v;
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(typeof c === "string" ? document.createTextNode(c) : c);
  return node;
}

async function api(method, path, body) {
  const headers = {};
  if (method !== "GET") {
    headers["content-type"] = "application/json";
    if (state.me) headers["x-csrf-token"] = state.me.csrf;
  }
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: "same-origin" });
  const data = await res.json().catch(() => ({}));
  if (res.status === 401 && path !== "/api/login") showLogin();
  if (!res.ok) throw new Error(data.error || `${res.status}`);
  return data;
}

function say(text, isError) {
  const line = $("status-line");
  line.textContent = text;
  line.className = isError ? "error" : "";
}

// ------------------------------------------------------------------ login

function showLogin() {
  closeStreams();
  state.me = null;
  $("login").hidden = false;
  $("fleet-view").hidden = true;
  $("agent-view").hidden = true;
  $("logout").hidden = true;
  $("who").textContent = "";
}

async function login(body) {
  $("login-error").textContent = "";
  try {
    state.me = await api("POST", "/api/login", body);
    enter();
  } catch (err) {
    $("login-error").textContent = err.message;
  }
}

function enter() {
  $("login").hidden = true;
  $("logout").hidden = false;
  $("who").textContent = `${state.me.user} · ${state.me.operator ? "operator" : "watching (not an operator)"}`;
  document.body.classList.toggle("watcher", !state.me.operator);
  route();
}

// ------------------------------------------------------------------ fleet

function closeStreams() {
  for (const k of ["fleetSource", "agentSource"]) {
    if (state[k]) state[k].close();
    state[k] = null;
  }
}

function openFleet() {
  if (state.fleetSource) return;
  const source = new EventSource("/api/stream");
  source.addEventListener("fleet", (ev) => {
    state.agents = JSON.parse(ev.data).agents;
    renderFleet();
    if (state.agentNick) renderAgentFacts();
  });
  source.onerror = () => say("lost the live stream; retrying…", true);
  source.onopen = () => say("");
  state.fleetSource = source;
}

function elapsed(since) {
  if (since === null || since === undefined) return "-";
  const s = Math.max(0, Math.round(Date.now() / 1000 - since));
  return s < 60 ? `${s}s` : s < 3600 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s` : `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

function spend(a) {
  if (a.spendUsd !== null && a.spendUsd !== undefined) return `$${a.spendUsd.toFixed(2)}`;
  return a.spend || "-";
}

function actionButton(a, action, label) {
  return el("button", { "data-action": action, disabled: !state.me.operator || a.source !== "local", title: state.me.operator ? "" : "only operators decide", onclick: () => act(a.nick, action) }, label);
}

async function act(nick, action) {
  try {
    await api("POST", `/api/agents/${encodeURIComponent(nick)}/${action}`, {});
    say(`${action} sent to ${nick}`);
  } catch (err) {
    say(`${nick}: ${err.message}`, true);
  }
}

function renderFleet() {
  const body = $("fleet").tBodies[0];
  const rows = state.agents.map((a) =>
    el(
      "tr",
      { "data-nick": a.nick, "data-state": a.state },
      el("td", {}, a.source === "local" ? el("a", { href: `#/agent/${encodeURIComponent(a.nick)}` }, a.nick) : a.nick),
      el("td", { class: `state state-${a.state}` }, a.state),
      el("td", {}, a.irc),
      el("td", { class: "tool" }, a.tool || "-"),
      el("td", { class: "elapsed", "data-since": a.toolSince === null ? "" : String(a.toolSince) }, elapsed(a.toolSince)),
      el("td", {}, String(a.queued)),
      el("td", {}, String(a.turns)),
      el("td", {}, String(a.approvals)),
      el("td", { class: "spend" }, spend(a)),
      el("td", { class: "task", title: a.task }, a.task),
      el("td", {}, a.source !== "local" ? "network" : a.state === "offline" ? actionButton(a, "start", "Start") : [a.paused ? actionButton(a, "resume", "Resume") : actionButton(a, "pause", "Pause"), actionButton(a, "restart", "Restart"), actionButton(a, "stop", "Stop")]),
    ),
  );
  body.replaceChildren(...rows);
  const counts = {};
  for (const a of state.agents) counts[a.state] = (counts[a.state] || 0) + 1;
  $("fleet-summary").textContent = `— ${state.agents.length} agent(s)${Object.keys(counts).length ? ": " : ""}${Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(", ")}`;
  renderApprovals();
}

function renderApprovals() {
  const items = [];
  for (const a of state.agents) for (const p of a.pending || []) items.push(approvalItem(a.nick, p));
  $("approvals").replaceChildren(...items);
  $("no-approvals").hidden = items.length > 0;
  $("approval-count").textContent = items.length ? `(${items.length})` : "";
}

function approvalItem(nick, p) {
  const reason = el("input", { placeholder: "reason for a deny (reaches the agent)", "data-field": "reason" });
  const disabled = !state.me.operator;
  const answer = async (verb) => {
    try {
      await api("POST", `/api/agents/${encodeURIComponent(nick)}/approvals/${encodeURIComponent(p.id)}`, { answer: verb, ...(verb === "deny" && reason.value ? { reason: reason.value } : {}) });
      say(`${verb} sent for ${nick}'s request ${p.id}`);
    } catch (err) {
      say(`${nick} ${p.id}: ${err.message}`, true);
    }
  };
  const left = Math.max(0, Math.round(p.expires_at - Date.now() / 1000));
  return el(
    "li",
    { class: "approval", "data-nick": nick, "data-id": p.id },
    el("div", {}, el("strong", {}, `${nick} · request ${p.id} · ${p.tool}`), ` asked in ${p.target || "-"}, times out in ${left}s`),
    el("pre", { class: "approval-text" }, p.text || p.summary),
    p.pattern ? el("div", { class: "meta" }, `Always would save: ${p.pattern}`) : null,
    el("button", { "data-answer": "approve", disabled, onclick: () => answer("approve") }, "Approve"),
    el("button", { "data-answer": "deny", disabled, onclick: () => answer("deny") }, "Deny"),
    reason,
    el("button", { "data-answer": "always", disabled, onclick: () => answer("always") }, "Always"),
  );
}

// ------------------------------------------------------------------ one agent

const KIND_LABEL = {
  prompt: "prompt",
  tool_call: "tool call",
  tool_result: "tool result",
  thinking: "thinking",
  reply: "reply",
  turn_failed: "turn failed",
  whisper: "supervisor whisper",
  escalation: "supervisor escalation",
  approval_requested: "approval requested",
  approval_resolved: "approval answered",
  usage: "usage",
};

function eventItem(e) {
  const who = e.kind === "prompt" ? `from ${e.who || "(the daemon)"}${e.where ? ` in ${e.where}` : ""} (${e.origin})` : e.kind === "tool_call" ? e.who : e.kind === "whisper" ? e.who : e.kind === "reply" && e.where ? `to ${e.where}` : "";
  return el(
    "li",
    { class: `kind-${e.kind}`, "data-seq": String(e.seq), "data-kind": e.kind },
    el("div", { class: "meta" }, `${new Date(e.at).toLocaleTimeString()} · ${KIND_LABEL[e.kind] || e.kind}${who ? ` · ${who}` : ""}${e.error ? " · error" : ""}`),
    el("pre", {}, e.text),
  );
}

function openAgent(nick) {
  state.agentNick = nick;
  state.oldest = null;
  $("agent-nick").textContent = nick;
  $("transcript").replaceChildren();
  renderAgentFacts();
  const source = new EventSource(`/api/agents/${encodeURIComponent(nick)}/stream`);
  source.addEventListener("events", (ev) => {
    const { events, first } = JSON.parse(ev.data);
    const list = $("transcript");
    for (const e of events) {
      if (list.querySelector(`[data-seq="${e.seq}"]`)) continue;
      list.append(eventItem(e));
      if (state.oldest === null || e.seq < state.oldest) state.oldest = e.seq;
    }
    $("older").hidden = first === null || state.oldest === null || state.oldest <= first;
    state.first = first;
  });
  source.onerror = () => say(`lost ${nick}'s transcript stream; retrying…`, true);
  state.agentSource = source;
}

async function older() {
  if (!state.agentNick || state.oldest === null) return;
  try {
    const page = await api("GET", `/api/agents/${encodeURIComponent(state.agentNick)}/events?before=${state.oldest}&limit=100`);
    const list = $("transcript");
    list.prepend(...page.events.map(eventItem));
    if (page.events.length) state.oldest = page.events[0].seq;
    $("older").hidden = page.first === null || state.oldest <= page.first;
  } catch (err) {
    say(err.message, true);
  }
}

function renderAgentFacts() {
  const a = state.agents.find((x) => x.nick === state.agentNick);
  $("agent-state").textContent = a ? a.state : "unknown";
  $("agent-state").className = `state state-${a ? a.state : "offline"}`;
  $("agent-facts").textContent = a ? `${a.backend || "?"} · ${a.turns} turns · spend today ${spend(a)} · ${a.tokensToday || 0} tokens today · queue ${a.queued}${a.tool ? ` · running ${a.tool}` : ""}` : "";
}

// ------------------------------------------------------------------ routing

function route() {
  if (!state.me) return;
  const m = /^#\/agent\/(.+)$/.exec(location.hash);
  if (state.agentSource) state.agentSource.close();
  state.agentSource = null;
  state.agentNick = null;
  openFleet();
  if (m) {
    $("fleet-view").hidden = true;
    $("agent-view").hidden = false;
    openAgent(decodeURIComponent(m[1]));
  } else {
    $("agent-view").hidden = true;
    $("fleet-view").hidden = false;
    renderFleet();
  }
}

window.addEventListener("hashchange", route);
document.addEventListener("DOMContentLoaded", async () => {
  $("login-account").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const f = new FormData(ev.target);
    login({ account: f.get("account"), password: f.get("password") });
  });
  $("login-token").addEventListener("submit", (ev) => {
    ev.preventDefault();
    login({ token: new FormData(ev.target).get("token") });
  });
  $("logout").addEventListener("click", async () => {
    await api("POST", "/api/logout", {}).catch(() => undefined);
    showLogin();
  });
  $("older").addEventListener("click", older);
  setInterval(() => {
    for (const td of document.querySelectorAll("td.elapsed")) td.textContent = elapsed(td.dataset.since === "" ? null : Number(td.dataset.since));
  }, 1000);
  try {
    state.me = await api("GET", "/api/me");
    enter();
  } catch {
    showLogin();
  }
});
