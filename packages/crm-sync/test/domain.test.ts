import { describe, expect, it } from 'vitest';
import { emailMatchKey, isFreeMailDomain, parseDomain, registrableDomain } from '../src/index.js';

describe('registrableDomain', () => {
  it.each([
    ['https://www.Acme.co.uk/about', 'acme.co.uk'],
    ['acme.com', 'acme.com'],
    ['ACME.COM.', 'acme.com'],
    ['http://shop.eu.acme.com:8080/x?y#z', 'acme.com'],
    ['jane@Mail.Acme.com', 'acme.com'],
    ['https://bücher.de', 'xn--bcher-kva.de'],
    ['xn--bcher-kva.de', 'xn--bcher-kva.de'],
    ['https://例え.jp/', 'xn--r8jz45g.jp'],
  ])('%s -> %s', (input, domain) => {
    expect(registrableDomain(input)).toBe(domain);
  });

  it('compares an IDN in one form whichever form it came in', () => {
    expect(registrableDomain('www.bücher.de')).toBe(registrableDomain('https://xn--bcher-kva.de/'));
  });

  it.each([
    ['127.0.0.1', 'ip-address'],
    ['http://[::1]/', 'ip-address'],
    ['localhost', 'no-public-suffix'],
    ['intranet.corp', 'no-public-suffix'],
    ['co.uk', 'no-public-suffix'],
    ['', 'empty'],
    ['   ', 'empty'],
  ])('refuses %j (%s)', (input, reason) => {
    expect(parseDomain(input)).toEqual({ ok: false, reason });
    expect(registrableDomain(input)).toBeNull();
  });

  it('never matches by substring: notacme.com is not acme.com', () => {
    expect(registrableDomain('https://www.notacme.com')).not.toBe(registrableDomain('acme.com'));
  });

  it('flags free-mail domains', () => {
    expect(parseDomain('jane@gmail.com')).toEqual({
      ok: true,
      domain: 'gmail.com',
      freeMail: true,
    });
    for (const d of [
      'outlook.com',
      'hotmail.co.uk',
      'live.com',
      'yahoo.com',
      'gmx.de',
      'gmx.net',
      'yahoo.co.jp',
      'proton.me',
      'qq.com',
      'mail.ru',
    ]) {
      expect(isFreeMailDomain(d)).toBe(true);
    }
    expect(isFreeMailDomain('acme.com')).toBe(false);
  });
});

describe('emailMatchKey', () => {
  it('lower-cases and puts the domain in punycode', () => {
    expect(emailMatchKey(' Jane.Doe@Bücher.DE ')).toBe('jane.doe@xn--bcher-kva.de');
  });
  it.each(['jane', '@acme.com', 'jane@'])('refuses %j', (input) => {
    expect(emailMatchKey(input)).toBeNull();
  });
});
