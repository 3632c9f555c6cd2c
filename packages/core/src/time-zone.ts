/**
 * Time zones, for budgets' periods (`budget.time_zone`) and schedules (`timezone:`): the
 * machine's own, and whether a name is one this Node knows.
 */

let machineZone: string | undefined;

/**
 * The machine's IANA time zone (what an unset `budget.time_zone` or schedule `timezone:` means),
 * looked up once and only when asked: the lookup maps ICU's zone data (about 5 MiB of RSS),
 * which a daemon without budgets or schedules should not pay for (issue 30).
 */
export function machineTimeZone(): string {
  return (machineZone ??= Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC");
}

/** True when `tz` is a time zone this Node knows (an IANA name such as Europe/Berlin, or UTC). */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
