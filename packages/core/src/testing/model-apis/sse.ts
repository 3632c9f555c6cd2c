/** Server-sent events for the streaming dialects. */
import type { ServerResponse } from "node:http";

/** Starts an SSE response. */
export function startSse(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
}

/** Writes one event (`event:` line only when a name is given). */
export function writeSse(res: ServerResponse, data: unknown, event?: string): void {
  res.write(`${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
}

/** Writes an API-shaped JSON error. */
export function writeJsonError(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
