import { describe, expect, it } from 'vitest';
import { normalizeDomain, normalizeEmail } from '../src/index.js';

describe('normalizeDomain', () => {
  it.each([
    ['https://www.Acme.com/x', 'acme.com'],
    ['ACME.com', 'acme.com'],
    ['http://acme.com/path?q=1', 'acme.com'],
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

  // Issue 14 item 7: what a browser (the WHATWG URL parser) reads from the same text.
  it.each([
    ['acme.com#@globex.com', 'acme.com'],
    ['http://globex.com\\@acme.com', 'globex.com'],
    ['globex.com\\@acme.com', 'globex.com'],
    ['http:\\\\globex.com\\x', 'globex.com'],
    ['https:globex.com', 'globex.com'],
    ['acme.com?next=@globex.com', 'acme.com'],
    ['ftp://acme.com/x', 'acme.com'],
    ['GLOBEX.COM.', 'globex.com'],
  ])('reads %s as a browser does: %s', (input, expected) => {
    expect(normalizeDomain(input)).toBe(expected);
  });

  it.each([
    'acme.com:8080',
    'http://acme.com:80/',
    'https://acme.com:443',
    'acme.com:443',
    'user@acme.com',
    'https://globex.com@acme.com/',
    'http://user:pass@acme.com',
    'mailto:x@acme.com',
  ])('refuses %s: a port or userinfo names no company domain', (input) => {
    expect(normalizeDomain(input)).toBeNull();
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

  it('drops a trailing dot of the domain, as for company domains', () => {
    expect(normalizeEmail('x@globex.com.')).toBe('x@globex.com');
    expect(normalizeEmail('X@GLOBEX.COM.')).toBe('x@globex.com');
  });

  it.each([
    'x@globex.com:80',
    'x@globex.com/x',
    'x@globex.com?x',
    'x@globex.com#x',
    'x@[::1]',
    'x@.',
  ])('refuses %s: the domain of an address is a bare host', (input) => {
    expect(normalizeEmail(input)).toBeNull();
  });

  it('rejects strings that are not addresses', () => {
    expect(normalizeEmail('acme.com')).toBeNull();
    expect(normalizeEmail('@acme.com')).toBeNull();
    expect(normalizeEmail('ada@')).toBeNull();
  });
});
