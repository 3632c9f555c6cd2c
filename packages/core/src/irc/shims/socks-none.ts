/**
 * irc-framework's SOCKS proxy client, absent: the build puts this module in place of the
 * `socks` package (packages/core/tsup.config.ts). culture never configures a SOCKS proxy, and
 * `socks` with its address library was ~100 KB of code loaded by every daemon (issue 30).
 * irc-framework reaches it only when a connection is given a `socks` option; then it throws.
 */
export class SocksClient {
  /** Always throws: culture's IRC connections do not go through SOCKS proxies. */
  static createConnection(): never {
    throw new Error("SOCKS proxies are not supported by culture's IRC transport");
  }
}

export default { SocksClient };
