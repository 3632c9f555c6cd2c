/**
 * Our own typings for irc-framework 4.14 (it ships none). Only the parts culture uses are
 * declared; they were checked against the library's source (src/client.js, connection.js,
 * transports/net.js, irclineparser.js).
 */
declare module "irc-framework" {
  namespace IrcFramework {
    /** A parsed IRC line as irc-framework hands it out. */
    interface IrcMessage {
      /** Tag values, unescaped; a tag without a value is "". Keys are lower-cased. */
      tags: Record<string, string>;
      /** The prefix without the colon ("" when absent). */
      prefix: string;
      nick: string;
      ident: string;
      hostname: string;
      /** Upper-cased command or three-digit numeric. */
      command: string;
      params: string[];
    }

    /** Options of `Client#connect` (the subset culture sets). */
    interface ConnectOptions {
      host: string;
      port: number;
      nick: string;
      username?: string;
      /** The realname. */
      gecos?: string;
      tls?: boolean;
      /** Verify the server's certificate (passed to tls.connect). */
      rejectUnauthorized?: boolean;
      /** Server password (PASS). Also used for SASL when `account` is absent — pass `account: {}` to prevent that. */
      password?: string;
      /** SASL PLAIN credentials; `{}` disables SASL. */
      account?: { account?: string; password?: string };
      sasl_disconnect_on_fail?: boolean;
      auto_reconnect?: boolean;
      auto_reconnect_max_retries?: number;
      /** Seconds between our PINGs; 0 disables. */
      ping_interval?: number;
      /** Seconds without any data before the connection is dropped; 0 disables. */
      ping_timeout?: number;
      message_max_length?: number;
      enable_echomessage?: boolean;
      /** CTCP VERSION reply. */
      version?: string;
      encoding?: string;
    }

    /** The connection object behind a client (socket state, line stream). */
    interface Connection {
      connected: boolean;
      /** Every parsed line from the server, before irc-framework's own handlers see it. */
      on(event: "message", listener: (message: IrcMessage, rawLine: string) => void): this;
      off(event: "message", listener: (message: IrcMessage, rawLine: string) => void): this;
      /** Writes the last line (if any) and closes; `hadError` destroys the socket instead of ending it. */
      end(data?: string, hadError?: boolean): void;
    }

    /** What the server announced (ISUPPORT, CAP). */
    interface NetworkInfo {
      /** ISUPPORT tokens, upper-cased names; PREFIX and CHANTYPES are parsed. */
      options: {
        PREFIX?: Array<{ symbol: string; mode: string }>;
        CHANTYPES?: string[];
        CASEMAPPING?: string;
        [token: string]: unknown;
      };
      supports(name: string): unknown;
      cap: { enabled: string[]; available: Map<string, string>; isEnabled(name: string): boolean };
    }

    /** Events culture listens to on the client. */
    interface ClientEvents {
      "socket close": (err: Error | false | undefined) => void;
      "socket connected": () => void;
      registered: (event: { nick: string }) => void;
      "nick in use": (event: { nick: string; reason: string }) => void;
      "sasl failed": (event: { reason: string; message?: string }) => void;
      "irc error": (event: { error: string; reason?: string; [k: string]: unknown }) => void;
      raw: (event: { line: string; from_server: boolean }) => void;
    }

    class Client {
      constructor(options?: Partial<ConnectOptions>);
      connection: Connection;
      network: NetworkInfo;
      user: { nick: string; username: string; host: string };
      /** True while the socket is open. */
      readonly connected: boolean;
      /** Starts a new connection (closing a current one). */
      connect(options?: ConnectOptions): void;
      /** Writes one line verbatim (a single string argument is not re-quoted). */
      raw(line: string): void;
      /** Sends QUIT and closes the socket once it is written. */
      quit(message?: string): void;
      requestCap(cap: string | string[]): void;
      on<E extends keyof ClientEvents>(event: E, listener: ClientEvents[E]): this;
      once<E extends keyof ClientEvents>(event: E, listener: ClientEvents[E]): this;
      off<E extends keyof ClientEvents>(event: E, listener: ClientEvents[E]): this;
      removeAllListeners(event?: string): this;
    }
  }
  export = IrcFramework;
}
