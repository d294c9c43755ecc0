/**
 * The public types, checked by the compiler (`pnpm --filter @service/lookup-client typecheck`
 * covers this file): every `expectTypeOf` must hold and every `@ts-expect-error` line must fail.
 * Nothing here sends a request.
 */
import { describe, expectTypeOf, it } from 'vitest';
import {
  type Company,
  type Contact,
  type ContactWithActivity,
  type KeyTransport,
  type LookupApiError,
  LookupClient,
  type LookupClientOptions,
  type LookupError,
  type LookupErrorCode,
  type LookupPromise,
  type LookupQuery,
  type LookupResponse,
  type LookupResponseInfo,
  type LookupResponseWithActivity,
  type OpenPurchaseIntent,
  type ResponseValidationError,
  type SiteSession,
  type UnauthorizedError,
} from '../src/index.js';

const client = new LookupClient({
  secretKey: 'sk_live_types_0123456789abcdefghij',
  baseUrl: 'https://lookup.example.com',
});
declare const maybe: boolean;

describe('lookup', () => {
  it('takes an email, a domain, or both, and nothing else', () => {
    expectTypeOf(client.lookup).toBeCallableWith({ email: 'ada@acme.com' });
    expectTypeOf(client.lookup).toBeCallableWith({ domain: 'acme.com' });
    expectTypeOf(client.lookup).toBeCallableWith({ email: 'ada@acme.com', domain: 'acme.com' });
    // Optional fields take undefined too, for callers compiling with exactOptionalPropertyTypes.
    expectTypeOf(client.lookup).toBeCallableWith({ email: 'ada@acme.com', domain: undefined });
    // @ts-expect-error neither email nor domain
    expectTypeOf(client.lookup).toBeCallableWith({});
    // @ts-expect-error an email must be a string
    expectTypeOf(client.lookup).toBeCallableWith({ email: undefined });
    // @ts-expect-error includeActivity alone finds nothing
    expectTypeOf(client.lookup).toBeCallableWith({ includeActivity: true });
    // @ts-expect-error per-call options do not go in the query
    const misplaced = () => client.lookup({ domain: 'acme.com', timeout: 5 });
    void misplaced;
    expectTypeOf<{ email: string }>().toExtend<LookupQuery>();
    expectTypeOf<{ name: string }>().not.toExtend<LookupQuery>();
  });

  it('narrows the result on includeActivity, in the options or the query, true in either winning', () => {
    const acme = { domain: 'acme.com' };
    const plain = () => client.lookup(acme);
    const without = () => client.lookup(acme, { includeActivity: false });
    const notInQuery = () => client.lookup({ ...acme, includeActivity: false });
    const withActivity = () => client.lookup(acme, { includeActivity: true });
    const inQuery = () => client.lookup({ ...acme, includeActivity: true });
    const inOptions = () =>
      client.lookup({ ...acme, includeActivity: false }, { includeActivity: true });
    const overOptions = () =>
      client.lookup({ ...acme, includeActivity: true }, { includeActivity: false });
    const either = () => client.lookup(acme, { includeActivity: maybe });
    const eitherInQuery = () => client.lookup({ ...acme, includeActivity: maybe });
    expectTypeOf(plain).returns.resolves.toEqualTypeOf<LookupResponse>();
    expectTypeOf(without).returns.resolves.toEqualTypeOf<LookupResponse>();
    expectTypeOf(notInQuery).returns.resolves.toEqualTypeOf<LookupResponse>();
    expectTypeOf(withActivity).returns.resolves.toEqualTypeOf<LookupResponseWithActivity>();
    expectTypeOf(inQuery).returns.resolves.toEqualTypeOf<LookupResponseWithActivity>();
    expectTypeOf(inOptions).returns.resolves.toEqualTypeOf<LookupResponseWithActivity>();
    expectTypeOf(overOptions).returns.resolves.toEqualTypeOf<LookupResponseWithActivity>();
    type Either = LookupResponse | LookupResponseWithActivity;
    expectTypeOf(either).returns.resolves.toEqualTypeOf<Either>();
    expectTypeOf(eitherInQuery).returns.resolves.toEqualTypeOf<Either>();
  });

  it('gives activity arrays only to contacts of a lookup with activity', () => {
    expectTypeOf<LookupResponse['contacts'][number]>().toEqualTypeOf<Contact>();
    expectTypeOf<
      LookupResponseWithActivity['contacts'][number]
    >().toEqualTypeOf<ContactWithActivity>();
    expectTypeOf<ContactWithActivity['site_activity']>().toEqualTypeOf<SiteSession[]>();
    // Exact types, so a lookup without activity has no activity fields.
    expectTypeOf<Contact>().not.toHaveProperty('site_activity');
    expectTypeOf<Contact>().not.toHaveProperty('linkedin_activity');
  });

  it('has no index signatures, so a misspelt field does not compile', () => {
    const typo = async () => {
      const result = await client.lookup({ domain: 'acme.com' });
      // @ts-expect-error misspelt
      void result.company.service_purchase_intnet;
      // @ts-expect-error no activity was asked for
      void result.contacts[0]?.site_activity;
    };
    expectTypeOf(typo).toBeFunction();
    expectTypeOf<string>().not.toExtend<keyof Company>();
    expectTypeOf<string>().not.toExtend<keyof LookupResponse>();
  });

  it('keeps intent levels a newer server adds, while naming the known ones', () => {
    expectTypeOf<Company['service_purchase_intent']>().toEqualTypeOf<OpenPurchaseIntent>();
    expectTypeOf<'very_high'>().toExtend<Company['service_purchase_intent']>();
    expectTypeOf<'none'>().toExtend<Company['service_purchase_intent']>();
  });

  it('a widened includeActivity gives a union that narrows on a field check', () => {
    const opts = { includeActivity: true };
    const narrowed = async () => {
      const result = await client.lookup({ domain: 'acme.com' }, opts);
      expectTypeOf(result).toEqualTypeOf<LookupResponse | LookupResponseWithActivity>();
      const contact = result.contacts[0];
      if (contact && 'site_activity' in contact) {
        expectTypeOf(contact).toEqualTypeOf<ContactWithActivity>();
      }
    };
    expectTypeOf(narrowed).toBeFunction();
  });

  it('withResponse() gives the data beside the answer metadata', () => {
    const promise = client.lookup({ domain: 'acme.com' }, { includeActivity: true });
    expectTypeOf(promise).toEqualTypeOf<LookupPromise<LookupResponseWithActivity>>();
    expectTypeOf(promise.withResponse).returns.resolves.toEqualTypeOf<{
      data: LookupResponseWithActivity;
      response: LookupResponseInfo;
    }>();
    expectTypeOf<LookupResponseInfo['requestId']>().toEqualTypeOf<string | undefined>();
  });

  it('takes per-call maxRetries, headers, timeout and signal', () => {
    expectTypeOf(client.lookup).toBeCallableWith(
      { domain: 'acme.com' },
      { maxRetries: 0, headers: { 'x-trace': '1' }, timeout: 5000, signal: AbortSignal.timeout(1) },
    );
  });
});

describe('options', () => {
  it('takes a baseUrl (or SERVICE_BASE_URL) and knows the key transports', () => {
    expectTypeOf<LookupClientOptions['baseUrl']>().toEqualTypeOf<string | URL | undefined>();
    expectTypeOf<{
      baseUrl: string;
      secretKey: string | undefined;
    }>().toExtend<LookupClientOptions>();
    expectTypeOf<NonNullable<LookupClientOptions['keyTransport']>>().toEqualTypeOf<
      'auto' | KeyTransport
    >();
    // @ts-expect-error not a key transport
    expectTypeOf<{ baseUrl: string; keyTransport: 'query' }>().toExtend<LookupClientOptions>();
  });
});

describe('errors', () => {
  it('carry what callers branch on', () => {
    expectTypeOf<LookupError['code']>().toEqualTypeOf<LookupErrorCode>();
    expectTypeOf<LookupError['status']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<LookupApiError['status']>().toEqualTypeOf<number>();
    expectTypeOf<LookupApiError['headers']>().toEqualTypeOf<Headers>();
    expectTypeOf<LookupError['requestId']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<UnauthorizedError['transportsTried']>().toEqualTypeOf<readonly KeyTransport[]>();
    expectTypeOf<ResponseValidationError>().toExtend<LookupError>();
    expectTypeOf<ResponseValidationError['issues'][number]['path']>().toEqualTypeOf<
      PropertyKey[]
    >();
  });
});
