/** A PostgreSQL connection URL given by an operator: checked up front, shown without secrets. */

/**
 * The URL's form for logs and messages: scheme, user, host, port and database, never the password
 * nor the query (which may carry one). Throws a `TypeError` saying what is wrong with `value`
 * (without repeating it, lest it hold a password) when it is not a PostgreSQL URL.
 */
export function shownDatabaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError('is not a URL (expected postgres://USER@HOST:PORT/DATABASE)');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw new TypeError(
      `is not a PostgreSQL URL: it starts with "${url.protocol}", not "postgres:" or "postgresql:"`,
    );
  const user = url.username === '' ? '' : `${url.username}@`;
  return `${url.protocol}//${user}${url.host}${url.pathname}`;
}
