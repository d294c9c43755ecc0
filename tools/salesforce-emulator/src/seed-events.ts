// Observed-activity events (the format of packages/lookup-core/EVENTS.md) for the companies
// `seedOrg` creates: company i is `company{i}.com` with one identified person
// `person{i}@company{i}.com`.
/** The visitors and sessions `sessionEvents` generates. */
export interface EventOptions {
  /** Companies 0..n-1, one session each for their person. */
  companies: number;
  /** The first `busy` people get 3 sessions (a timeline motion with minSessions 3 matches them). */
  busy?: number;
  /** People at newco.io the CRM does not know, with very high intent. */
  newcomers?: number;
}

const HOUR = 3_600_000;

/** Generated observed-activity events (lookup-core's event format) for the seeded companies. */
export function sessionEvents(options: EventOptions): object[] {
  const events: object[] = [];
  const start = Date.parse('2026-03-02T09:00:00.000Z');
  const session = (id: string, domain: string, email: string, n: number, intent: string) => ({
    type: 'session',
    id,
    company: { domain, name: domain.split('.')[0] },
    contact: { email, name: `Person ${email.split('@')[0]}`, title: 'Engineer' },
    visitor_id: `v-${email}`,
    start_time: new Date(start + n * HOUR).toISOString(),
    end_time: new Date(start + n * HOUR + 600_000).toISOString(),
    active_time: 300,
    pages_visited: ['/', '/pricing'],
    signals: ['pricing'],
    referrer: n % 2 === 0 ? 'https://www.google.com/' : '',
    utm: n % 2 === 0 ? { source: 'google', medium: 'cpc' } : {},
    intent,
    city: 'Lyon',
    country: 'France',
  });
  for (let i = 0; i < options.companies; i++) {
    const sessions = i < (options.busy ?? 0) ? 3 : 1;
    for (let s = 0; s < sessions; s++) {
      events.push(
        session(`s-${i}-${s}`, `company${i}.com`, `person${i}@company${i}.com`, s, 'medium'),
      );
    }
  }
  for (let i = 0; i < (options.newcomers ?? 0); i++) {
    events.push(session(`n-${i}`, 'newco.io', `newcomer${i}@newco.io`, i, 'very_high'));
  }
  return events;
}

/** Events as NDJSON, one a line, as `service-crm sync --events` reads them. */
export function toNdjson(events: readonly object[]): string {
  return `${events.map((e) => JSON.stringify(e)).join('\n')}\n`;
}
