/**
 * node:tls for irc-framework, loaded by the first TLS connection: the build puts this module in
 * place of irc-framework's `require("tls")` (packages/core/tsup.config.ts). irc-framework loads
 * tls when it is loaded, so every daemon did, though most connect to a local server in plain
 * text: node:tls and its parts cost ~0.6 MiB of RSS and ~0.3 MiB of heap on top of node:crypto,
 * which the daemon needs anyway (issue 30).
 *
 * irc-framework uses two things of it: `tls.connect` for a TLS connection, and
 * `socket instanceof tls.TLSSocket` for every connection. Until a TLS connection has loaded
 * node:tls, `TLSSocket` is a class no object belongs to: every socket irc-framework has was
 * made by `net.connect`, none is a TLS socket.
 */
import { createRequire } from "node:module";
import type * as Tls from "node:tls";

/** What `TLSSocket` is until node:tls is loaded: nothing is an instance of it. */
class TLSSocketNotLoaded {}

/** node:tls's TLSSocket once a TLS connection has loaded it; before, a class no socket belongs to. */
export let TLSSocket: typeof Tls.TLSSocket | typeof TLSSocketNotLoaded = TLSSocketNotLoaded;

/** `tls.connect`, loading node:tls on the first call. */
export function connect(options: Tls.ConnectionOptions): Tls.TLSSocket {
  const tls = createRequire(import.meta.url)("node:tls") as typeof Tls;
  TLSSocket = tls.TLSSocket;
  return tls.connect(options);
}
