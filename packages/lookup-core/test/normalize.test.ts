import { describe, expect, it } from 'vitest';
import { normalizeDomain, normalizeEmail } from '../src/index.js';

describe('normalizeDomain', () => {
  it.each([
    ['https://www.Acme.com/x', 'acme.com'],
    ['ACME.com', 'acme.com'],
    ['http://acme.com:8080/path?q=1', 'acme.com'],
    ['www.eu.acme.com.', 'eu.acme.com'],
    ['  acme.com  ', 'acme.com'],
    ['bücher.de', 'xn--bcher-kva.de'],
    ['https://www.BÜCHER.de/katalog', 'xn--bcher-kva.de'],
    ['xn--bcher-kva.de', 'xn--bcher-kva.de'],
  ])('%s -> %s', (input, expected) => {
    expect(normalizeDomain(input)).toBe(expected);
  });

  it('returns null when no host is left', () => {
    expect(normalizeDomain('https://')).toBeNull();
    expect(normalizeDomain('   ')).toBeNull();
  });

  it('returns null for a name longer than DNS allows (253 characters)', () => {
    const label = 'a'.repeat(63);
    const longest = `${label}.${label}.${label}.${'b'.repeat(61)}`;
    expect(longest).toHaveLength(253);
    expect(normalizeDomain(`https://www.${longest}./x`)).toBe(longest);
    expect(normalizeDomain(`${longest}c`)).toBeNull();
  });

  it('returns null for a host the URL standard forbids', () => {
    expect(normalizeDomain('acme<script>.com')).toBeNull();
    expect(normalizeDomain('ac|me.com')).toBeNull();
  });
});

describe('normalizeEmail', () => {
  it('lower-cases and trims', () => {
    expect(normalizeEmail(' Ada.Lovelace+ads@Acme.COM ')).toBe('ada.lovelace+ads@acme.com');
  });
  it('writes an internationalised domain in its ASCII form, keeping the local part', () => {
    expect(normalizeEmail('Jörg+News@Bücher.de')).toBe('jörg+news@xn--bcher-kva.de');
    expect(normalizeEmail('jörg+news@xn--bcher-kva.de')).toBe('jörg+news@xn--bcher-kva.de');
  });

  it('rejects strings that are not addresses', () => {
    expect(normalizeEmail('acme.com')).toBeNull();
    expect(normalizeEmail('@acme.com')).toBeNull();
    expect(normalizeEmail('ada@')).toBeNull();
  });
});
