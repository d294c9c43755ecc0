/**
 * libpq's connection URLs, multi-host form included, as the store reads them. The expected hosts
 * and values follow libpq's documentation:
 * https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-CONNSTRING (URI form, several
 * `host[:port]` separated by commas, `host`/`port` parameters) and
 * https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-CONNECT-TARGET-SESSION-ATTRS.
 */
import { describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../src/store/libpq-url.js';

describe('parseDatabaseUrl', () => {
  it('lists every host of the authority in order, each with its port or 5432', () => {
    const list = parseDatabaseUrl(
      'postgresql://app:s3cret@h1:5433,h2,[::1]:6000/lookup?target_session_attrs=read-write&sslmode=disable',
    );
    expect(list.hosts).toEqual([
      { host: 'h1', port: 5433 },
      { host: 'h2', port: 5432 },
      { host: '[::1]', port: 6000 },
    ]);
    expect(list.targetSessionAttrs).toBe('read-write');
    // One host each, the password kept for the connection, our own parameter removed.
    expect(list.urlFor(1)).toBe('postgres://app:s3cret@h2:5432/lookup?sslmode=disable');
    expect(list.shown).toBe('postgresql://app@h1:5433,h2:5432,[::1]:6000/lookup');
  });

  it('takes the hosts and ports of the host and port parameters when given', () => {
    const list = parseDatabaseUrl('postgres:///db?host=a,b&port=1111,2222');
    expect(list.hosts).toEqual([
      { host: 'a', port: 1111 },
      { host: 'b', port: 2222 },
    ]);
    expect(parseDatabaseUrl('postgres:///db?host=a,b&port=7000').hosts).toEqual([
      { host: 'a', port: 7000 },
      { host: 'b', port: 7000 },
    ]);
  });

  it('defaults to any, reads each of libpq six values, and refuses another naming them', () => {
    expect(parseDatabaseUrl('postgres://u@h/db').targetSessionAttrs).toBe('any');
    for (const value of ['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby'])
      expect(
        parseDatabaseUrl(`postgres://u@h/db?target_session_attrs=${value}`).targetSessionAttrs,
      ).toBe(value);
    expect(() => parseDatabaseUrl('postgres://u@h/db?target_session_attrs=master')).toThrow(
      new TypeError(
        "has target_session_attrs=master, not one of any, read-write, read-only, primary, standby, prefer-standby (libpq's values)",
      ),
    );
  });

  it('reads pgbouncer=true, and passes no parameter of its own on', () => {
    const list = parseDatabaseUrl('postgres://u@h:6432/db?pgbouncer=true');
    expect(list.pgbouncer).toBe(true);
    expect(list.urlFor(0)).toBe('postgres://u@h:6432/db');
    expect(parseDatabaseUrl('postgres://u@h/db').pgbouncer).toBe(false);
  });

  it('says what is wrong without repeating the URL', () => {
    expect(() => parseDatabaseUrl('not a url')).toThrow(
      new TypeError('is not a URL (expected postgres://USER@HOST:PORT/DATABASE)'),
    );
    expect(() => parseDatabaseUrl('mysql://u:pw@h/db')).toThrow(
      new TypeError(
        'is not a PostgreSQL URL: it starts with "mysql:", not "postgres:" or "postgresql:"',
      ),
    );
    expect(() => parseDatabaseUrl('postgres://u:pw@h1:5432,h2:54x2/db')).toThrow(
      new TypeError('names a host with port "54x2", not a number'),
    );
  });
});
