// Tokens go out over https only, or over plain http to this machine: an instance or login URL
// of plain http to any other host is refused before any request, through the library and the
// environment alike.
import { describe, expect, it } from 'vitest';
import { connect, connectFromEnv, resolveLoginUrl, SalesforceError } from '../../src/salesforce.js';

const token = '00Dxx0000000001!AQ0AQFakeSessionForTests';

describe('https for anything but this machine', () => {
  it.each([
    'http://acme.my.salesforce.com',
    'http://acme.my.salesforce.com:443/',
    'HTTP://10.0.0.8',
    'http://127.0.0.1.example.com',
    'http://localhost.example.com',
    'ftp://acme.my.salesforce.com',
  ])('refuses the instance URL %s, naming it, before any request', (instanceUrl) => {
    const refusal = (() => {
      try {
        connect({ instanceUrl, accessToken: token });
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(SalesforceError);
    expect((refusal as SalesforceError).code).toBe('invalid_options');
    expect((refusal as SalesforceError).message).toMatch(
      /^Instance URL \w+:\/\/[\w.:-]+ must use https:\/\//,
    );
    expect(() => connectFromEnv({ SF_INSTANCE_URL: instanceUrl, SF_ACCESS_TOKEN: token })).toThrow(
      /must use https/,
    );
    expect(() => resolveLoginUrl(instanceUrl)).toThrow(/^Login host .* must use https/);
  });

  it('refuses a refresh login host of plain http with the instance', () => {
    expect(() =>
      connect({
        instanceUrl: 'https://acme.my.salesforce.com',
        accessToken: token,
        refreshToken: 'refresh',
        clientId: 'app',
        loginUrl: 'http://login.example.com',
      }),
    ).toThrow(/^Login host http:\/\/login.example.com must use https/);
  });

  it.each([
    'https://acme.my.salesforce.com',
    'http://127.0.0.1:8080',
    'http://127.1.2.3',
    'http://[::1]:8080/',
    'http://localhost:8080',
  ])('accepts %s', (instanceUrl) => {
    expect(connect({ instanceUrl, accessToken: token }).instanceUrl).toBe(
      instanceUrl.replace(/\/$/, ''),
    );
  });

  it('refuses something that is not a URL without repeating it', () => {
    expect(() => connect({ instanceUrl: `not a url ${token}`, accessToken: token })).toThrow(
      /^Instance URL is not a URL$/,
    );
  });
});
