/**
 * The parts of irc-framework 4.14 (no typings of its own) that the server's protocol tests
 * use: a real, widely used client library checks the server against its expectations.
 */
declare module "irc-framework" {
  namespace IrcFramework {
    interface MessageEvent {
      nick: string;
      ident: string;
      hostname: string;
      target: string;
      message: string;
      tags: Record<string, string>;
      time?: number;
      account?: string;
    }
    interface ConnectOptions {
      host: string;
      port: number;
      nick: string;
      username?: string;
      gecos?: string;
      account?: { account?: string; password?: string };
      auto_reconnect?: boolean;
      ping_interval?: number;
      ping_timeout?: number;
      enable_echomessage?: boolean;
    }
    interface ClientEvents {
      registered: (event: { nick: string }) => void;
      join: (event: { nick: string; channel: string; account?: string | false; gecos?: string; time?: number }) => void;
      privmsg: (event: MessageEvent) => void;
      "sasl failed": (event: { reason: string; message?: string }) => void;
      loggedin: (event: { account: string }) => void;
      "batch end chathistory": (event: { id: string; type: string; params: string[]; commands: { command: string; params: string[]; tags: Record<string, string> }[] }) => void;
      "socket close": (err?: unknown) => void;
      userlist: (event: { channel: string; users: { nick: string; modes: string[] }[] }) => void;
    }
    class Client {
      constructor(options?: Partial<ConnectOptions>);
      network: { options: Record<string, unknown>; cap: { enabled: string[]; isEnabled(name: string): boolean }; name: string };
      user: { nick: string };
      connect(options?: ConnectOptions): void;
      raw(line: string): void;
      say(target: string, message: string): void;
      join(channel: string, key?: string): void;
      quit(message?: string): void;
      requestCap(cap: string | string[]): void;
      on<E extends keyof ClientEvents>(event: E, listener: ClientEvents[E]): this;
      once<E extends keyof ClientEvents>(event: E, listener: ClientEvents[E]): this;
    }
  }
  export = IrcFramework;
}
