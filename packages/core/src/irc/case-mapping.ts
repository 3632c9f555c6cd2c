/**
 * IRC compares nicks and channel names case-insensitively, with a server-chosen mapping
 * (ISUPPORT CASEMAPPING): under the RFC 1459 default `[]\~` are the upper case of `{}|^`, so
 * `#Foo[1]` and `#foo{1}` are one channel. Every map keyed by a nick or channel uses this.
 */

/** The CASEMAPPING values culture understands; anything else is treated as `rfc1459`. */
export type CaseMapping = "ascii" | "rfc1459" | "strict-rfc1459";

/** Lower-cases `name` the way the server compares it. */
export function ircLower(name: string, caseMapping: string = "rfc1459"): string {
  const upperBound = caseMapping === "ascii" ? 0x5a : caseMapping === "strict-rfc1459" ? 0x5d : 0x5e;
  let out = "";
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    out += c >= 0x41 && c <= upperBound ? String.fromCharCode(c + 32) : name[i];
  }
  return out;
}
