/**
 * Free-mail providers: an address there identifies a person, never a company.
 * Registrable domains (as `registrableDomain` gives them), plus brands whose every country domain
 * is free mail (`gmx.de`, `yahoo.co.jp`, `hotmail.fr`), matched by the label before the suffix.
 */
const FREE_MAIL_DOMAINS = new Set([
  'gmail.com',
  'googlemail.com',
  'msn.com',
  'ymail.com',
  'rocketmail.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'aol.com',
  'proton.me',
  'protonmail.com',
  'pm.me',
  'tutanota.com',
  'tuta.io',
  'zoho.com',
  'mail.com',
  'fastmail.com',
  'hey.com',
  'mail.ru',
  'bk.ru',
  'inbox.ru',
  'list.ru',
  'yandex.ru',
  'yandex.com',
  'qq.com',
  '163.com',
  '126.com',
  'yeah.net',
  'sina.com',
  'naver.com',
  'web.de',
  't-online.de',
  'orange.fr',
  'free.fr',
  'laposte.net',
  'libero.it',
  'seznam.cz',
  'wp.pl',
  'o2.pl',
  'interia.pl',
  'rediffmail.com',
]);
const FREE_MAIL_BRANDS = new Set(['gmx', 'yahoo', 'hotmail', 'outlook', 'live']);

/** Whether `registrableDomain` (e.g. `gmx.de`) belongs to a free-mail provider. */
export function isFreeMailDomain(registrableDomain: string): boolean {
  const domain = registrableDomain.toLowerCase();
  if (FREE_MAIL_DOMAINS.has(domain)) return true;
  const brand = domain.split('.')[0] ?? '';
  return FREE_MAIL_BRANDS.has(brand);
}
