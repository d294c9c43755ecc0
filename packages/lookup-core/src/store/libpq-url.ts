/**
 * PostgreSQL connection URLs as libpq reads them, several hosts included
 * (https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-MULTIPLE-HOSTS):
 * `postgres://user@h1:5432,h2:5433/db?target_session_attrs=read-write`. node-postgres takes one
 * host, so the store tries the hosts itself (`server-list.ts`) with one single-host URL each.
 */

/** libpq's `target_session_attrs`: which of the listed servers a connection may settle on. */
export type TargetSessionAttrs =
  | 'any'
  | 'read-write'
  | 'read-only'
  | 'primary'
  | 'standby'
  | 'prefer-standby';

const TARGETS: readonly TargetSessionAttrs[] = [
  'any',
  'read-write',
  'read-only',
  'primary',
  'standby',
  'prefer-standby',
];

/** One server of the list. */
export interface HostPort {
  host: string;
  port: number;
}

/** A parsed URL: its servers in order, what a connection must find there, and how to reach each. */
export interface ServerList {
  hosts: HostPort[];
  targetSessionAttrs: TargetSessionAttrs;
  /**
   * `pgbouncer=true` (the parameter Prisma reads too): a pooler in transaction mode sits in between,
   * so no named prepared statement and no `LISTEN`.
   */
  pgbouncer: boolean;
  /** A single-host URL for `hosts[i]`, with the parameters node-postgres does not know removed. */
  urlFor(i: number): string;
  /** Scheme, user, hosts and database: no password, no query (which may carry one). */
  shown: string;
}

const SHAPE = /^(postgres(?:ql)?):\/\/(?:([^@/?#]*)@)?([^/?#]*)(\/[^?#]*)?(?:\?([^#]*))?$/;
/** Parameters read here and not passed on to node-postgres. */
const OURS = new Set(['target_session_attrs', 'pgbouncer', 'host', 'port']);

/** `h`, `h:p`, `[v6]` or `[v6]:p` (`port` when the part has none). */
function hostPort(part: string, port: number): HostPort {
  const bracketed = /^\[([^\]]+)\](?::(\d*))?$/.exec(part);
  const [host, given] = bracketed
    ? [`[${bracketed[1]}]`, bracketed[2]]
    : [part.split(':')[0] ?? '', part.includes(':') ? part.slice(part.indexOf(':') + 1) : ''];
  if (given !== undefined && given !== '' && !/^\d{1,5}$/.test(given))
    throw new TypeError(`names a host with port "${given}", not a number`);
  return { host: host === '' ? 'localhost' : host, port: given ? Number(given) : port };
}

/** The hosts of the URL's authority, or of its `host` and `port` parameters when given. */
function hostsOf(authority: string, params: URLSearchParams): HostPort[] {
  const ports = (params.get('port') ?? '').split(',').filter((p) => p !== '');
  if (ports.some((p) => !/^\d{1,5}$/.test(p)))
    throw new TypeError('has a port parameter that is not a list of numbers');
  const fromParam = params.get('host');
  const parts = (fromParam ?? authority).split(',');
  return parts.map((part, i) => {
    const port = Number(ports.length === 1 ? ports[0] : (ports[i] ?? 5432));
    return fromParam === null ? hostPort(part, port) : { host: part || 'localhost', port };
  });
}

function targetOf(params: URLSearchParams): TargetSessionAttrs {
  const value = params.get('target_session_attrs') ?? 'any';
  const target = TARGETS.find((t) => t === value);
  if (target === undefined)
    throw new TypeError(
      `has target_session_attrs=${value}, not one of ${TARGETS.join(', ')} (libpq's values)`,
    );
  return target;
}

/**
 * Parses a libpq URL. Throws a `TypeError` saying what is wrong (without repeating the URL, lest
 * it hold a password) when it is not one.
 */
export function parseDatabaseUrl(value: string): ServerList {
  const match = SHAPE.exec(value.trim());
  if (match === null) {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1];
    if (scheme !== undefined && /^[a-z][a-z0-9+.-]*:\/\//i.test(value))
      throw new TypeError(
        `is not a PostgreSQL URL: it starts with "${scheme}:", not "postgres:" or "postgresql:"`,
      );
    throw new TypeError('is not a URL (expected postgres://USER@HOST:PORT/DATABASE)');
  }
  const [, scheme, userinfo, authority = '', path = '', query = ''] = match;
  const params = new URLSearchParams(query);
  const hosts = hostsOf(authority, params);
  const targetSessionAttrs = targetOf(params);
  const passed = new URLSearchParams([...params].filter(([key]) => !OURS.has(key)));
  const rest = passed.size === 0 ? '' : `?${passed}`;
  const user = userinfo === undefined ? '' : `${userinfo}@`;
  const shownUser = userinfo === undefined ? '' : `${userinfo.split(':')[0]}@`;
  const netloc = ({ host, port }: HostPort) => `${host}:${port}`;
  return {
    hosts,
    targetSessionAttrs,
    pgbouncer: params.get('pgbouncer') === 'true',
    urlFor: (i) => `postgres://${user}${netloc(hosts[i] as HostPort)}${path}${rest}`,
    shown: `${scheme}://${shownUser}${hosts.map(netloc).join(',')}${path}`,
  };
}
