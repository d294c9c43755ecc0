import { requires } from '@service/test-support';
import { describe, expect, it } from 'vitest';
import {
  buildProfileFieldPermissionsRequest,
  buildUpsertCustomFieldRequests,
  CrmSyncError,
  customFields,
  parseMetadataResults,
  toSourceFormat,
} from '../src/index.js';
import { schemaMissing, validateEnvelopes } from './metadata-schema.js';

const options = { sessionId: '00Dxx0000001gPL!AQ4AQ.token&<"' };
const upserts = buildUpsertCustomFieldRequests(customFields, options);
const profile = buildProfileFieldPermissionsRequest('Custom: Sales Profile', customFields, options);

function children(xml: string, tag: string): string[] {
  return [...xml.matchAll(new RegExp(`<${tag}>([^<]*)</${tag}>`, 'g'))].map((m) => m[1] ?? '');
}

describe('buildUpsertCustomFieldRequests', () => {
  it('splits the 61 fields into calls of at most 10, in catalogue order', () => {
    expect(upserts).toHaveLength(7);
    expect(upserts.map((u) => u.fullNames.length)).toEqual([10, 10, 10, 10, 10, 10, 1]);
    // The components each request body carries: at most 10 per create/update/upsert call
    // (https://developer.salesforce.com/docs/platform/api-metadata/references/crud-based-calls/meta-upsertmetadata.html).
    expect(upserts.map((u) => u.body.match(/<metadata xsi:type="CustomField">/g)?.length)).toEqual([
      10, 10, 10, 10, 10, 10, 1,
    ]);
    expect(upserts.flatMap((u) => u.fullNames)).toEqual(customFields.map((f) => f.fullName));
    expect(upserts.flatMap((u) => children(u.body, 'fullName'))).toEqual(
      customFields.map((f) => f.fullName),
    );
  });

  it('is a SOAP 1.1 upsertMetadata call with the session header', () => {
    const [first] = upserts;
    expect(first?.path).toBe('/services/Soap/m/59.0');
    expect(first?.headers).toEqual({ 'Content-Type': 'text/xml; charset=UTF-8', SOAPAction: '""' });
    expect(first?.body).toContain('<sessionId>00Dxx0000001gPL!AQ4AQ.token&amp;&lt;"</sessionId>');
    expect(first?.body).toMatch(/<upsertMetadata>\s*<metadata xsi:type="CustomField">/);
    expect(
      buildUpsertCustomFieldRequests(customFields.slice(0, 1), {
        ...options,
        apiVersion: '63.0',
      })[0]?.path,
    ).toBe('/services/Soap/m/63.0');
  });

  it('writes each type with the metadata it needs, in XSD order', () => {
    const body = upserts.map((u) => u.body).join('');
    const block = (fullName: string) => {
      const start = body.indexOf(`<fullName>${fullName}</fullName>`);
      return body
        .slice(start, body.indexOf('</metadata>', start))
        .match(/<(\w+)>/g)
        ?.join('');
    };
    expect(block('Account.ServiceCreationTrigger__c')).toBe(
      '<fullName><description><label><length><type>',
    );
    expect(block('Lead.ServiceIntents__c')).toBe(
      '<fullName><description><label><length><type><visibleLines>',
    );
    expect(block('Contact.ServiceSessions__c')).toBe(
      '<fullName><description><label><precision><scale><type>',
    );
    expect(block('Account.ServiceFirstSeen__c')).toBe('<fullName><description><label><type>');
  });

  it('gives no calls for no fields and refuses bad options', () => {
    expect(buildUpsertCustomFieldRequests([], options)).toEqual([]);
    expect(() => buildUpsertCustomFieldRequests(customFields, { sessionId: ' ' })).toThrow(
      CrmSyncError,
    );
    expect(() =>
      buildUpsertCustomFieldRequests(customFields, { ...options, apiVersion: 'v59' }),
    ).toThrow(/apiVersion/);
    const twice = [customFields[0], customFields[0]].filter((f) => f !== undefined);
    expect(() => buildUpsertCustomFieldRequests(twice, options)).toThrow(/named more than once/);
  });
});

describe('buildProfileFieldPermissionsRequest', () => {
  it('grants readable and editable on exactly the given fields', () => {
    expect(profile.operation).toBe('updateMetadata');
    expect(profile.fullNames).toEqual(['Custom: Sales Profile']);
    expect(profile.body).toMatch(
      /<metadata xsi:type="Profile">\s*<fullName>Custom: Sales Profile<\/fullName>/,
    );
    expect(children(profile.body, 'field')).toEqual(customFields.map((f) => f.fullName));
    expect(profile.body).toMatch(
      /<fieldPermissions>\s*<editable>true<\/editable>\s*<field>Account.ServiceCreationTrigger__c<\/field>\s*<readable>true<\/readable>\s*<\/fieldPermissions>/,
    );
    const two = buildProfileFieldPermissionsRequest(
      'Admin',
      [{ fullName: 'Lead.X__c' }, { fullName: 'Lead.Y__c' }],
      options,
    );
    expect(children(two.body, 'field')).toEqual(['Lead.X__c', 'Lead.Y__c']);
  });

  it('refuses no fields or no profile', () => {
    expect(() => buildProfileFieldPermissionsRequest('Admin', [], options)).toThrow(
      /at least one field/,
    );
    expect(() => buildProfileFieldPermissionsRequest('', customFields, options)).toThrow(
      /profile full name/,
    );
  });
});

const upsertResponse = `<?xml version="1.0" encoding="UTF-8"?>
<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns="http://soap.sforce.com/2006/04/metadata">
  <soapenv:Body>
    <upsertMetadataResponse>
      <result><created>true</created><fullName>Account.ServiceSessions__c</fullName><success>true</success></result>
      <result><created>false</created><fullName>Lead.ServiceSessions__c</fullName><success>true</success></result>
      <result>
        <created>false</created>
        <errors><fields>label</fields><fields>type</fields><message>Cannot change type &amp; label</message><statusCode>FIELD_INTEGRITY_EXCEPTION</statusCode></errors>
        <fullName>Contact.ServiceSessions__c</fullName>
        <success>false</success>
      </result>
    </upsertMetadataResponse>
  </soapenv:Body>
</soapenv:Envelope>`;
const updateResponse = `<?xml version="1.0" encoding="UTF-8"?>
<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:m="http://soap.sforce.com/2006/04/metadata">
  <soapenv:Body><m:updateMetadataResponse><m:result><m:fullName>Admin</m:fullName><m:success>true</m:success></m:result></m:updateMetadataResponse></soapenv:Body>
</soapenv:Envelope>`;
const faultResponse = `<?xml version="1.0" encoding="UTF-8"?>
<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:sf="http://soap.sforce.com/2006/04/metadata" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <soapenv:Body>
    <soapenv:Fault>
      <faultcode>sf:INVALID_SESSION_ID</faultcode>
      <faultstring>INVALID_SESSION_ID: Invalid Session ID found in SessionHeader: Illegal Session</faultstring>
      <detail><sf:UnexpectedErrorFault xsi:type="sf:UnexpectedErrorFault"><sf:exceptionCode>INVALID_SESSION_ID</sf:exceptionCode><sf:exceptionMessage>Invalid Session ID found in SessionHeader: Illegal Session</sf:exceptionMessage></sf:UnexpectedErrorFault></detail>
    </soapenv:Fault>
  </soapenv:Body>
</soapenv:Envelope>`;

describe('parseMetadataResults', () => {
  it('reads UpsertResults in order, with errors', () => {
    expect(parseMetadataResults(upsertResponse)).toEqual({
      ok: true,
      results: [
        { fullName: 'Account.ServiceSessions__c', success: true, created: true, errors: [] },
        { fullName: 'Lead.ServiceSessions__c', success: true, created: false, errors: [] },
        {
          fullName: 'Contact.ServiceSessions__c',
          success: false,
          created: false,
          errors: [
            {
              statusCode: 'FIELD_INTEGRITY_EXCEPTION',
              message: 'Cannot change type & label',
              fields: ['label', 'type'],
            },
          ],
        },
      ],
    });
  });

  it('reads SaveResults (no created) whatever the prefix', () => {
    expect(parseMetadataResults(updateResponse)).toEqual({
      ok: true,
      results: [{ fullName: 'Admin', success: true, created: null, errors: [] }],
    });
  });

  it('reads a SOAP fault', () => {
    expect(parseMetadataResults(faultResponse)).toEqual({
      ok: false,
      fault: {
        faultCode: 'sf:INVALID_SESSION_ID',
        faultString:
          'INVALID_SESSION_ID: Invalid Session ID found in SessionHeader: Illegal Session',
        exceptionCode: 'INVALID_SESSION_ID',
      },
    });
  });

  it.each([
    ['', 'empty'],
    ['<html><body>Service Unavailable</body></html>', 'not SOAP'],
    [
      '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body/></soapenv:Envelope>',
      'empty body',
    ],
    [
      upsertResponse.replace('<fullName>Lead.ServiceSessions__c</fullName>', ''),
      'result without fullName',
    ],
  ])('refuses %#: %s', (xml) => {
    expect(() => parseMetadataResults(xml)).toThrow(
      expect.objectContaining({ code: 'invalid_response' }),
    );
  });
});

describe('toSourceFormat', () => {
  const files = toSourceFormat(customFields);
  it('writes one .field-meta.xml per field, a permission set and a package.xml', () => {
    expect(files).toHaveLength(63);
    const lead = files.find(
      (f) =>
        f.path === 'force-app/main/default/objects/Lead/fields/ServiceIntents__c.field-meta.xml',
    );
    expect(lead?.contents).toContain(
      '<CustomField xmlns="http://soap.sforce.com/2006/04/metadata">',
    );
    expect(lead?.contents).toContain('<fullName>ServiceIntents__c</fullName>');
    const permissionSet = files.find((f) =>
      f.path.endsWith('Service_Fields.permissionset-meta.xml'),
    );
    expect(children(permissionSet?.contents ?? '', 'field')).toEqual(
      customFields.map((f) => f.fullName),
    );
    const manifest = files.find((f) => f.path === 'manifest/package.xml')?.contents ?? '';
    expect(children(manifest, 'members')).toEqual([
      ...customFields.map((f) => f.fullName),
      'Service_Fields',
    ]);
    expect(children(manifest, 'version')).toEqual(['59.0']);
  });
  it('refuses a permission set name that is not an API name', () => {
    expect(() => toSourceFormat(customFields, { permissionSetName: 'Service Fields' })).toThrow(
      CrmSyncError,
    );
  });
});

describe("against Salesforce's Metadata API schema", requires(schemaMissing), () => {
  it('every generated envelope validates', async () => {
    expect(await validateEnvelopes([...upserts.map((u) => u.body), profile.body])).toEqual([]);
  });

  it('the hand-written responses validate, so the parser is tested on true shapes', async () => {
    expect(await validateEnvelopes([upsertResponse, updateResponse])).toEqual([]);
  });

  it('catches an element out of XSD order (the check can fail)', async () => {
    const swapped =
      upserts[0]?.body.replace(
        /<label>([^<]*)<\/label>\s*<length>255<\/length>/,
        '<length>255</length><label>$1</label>',
      ) ?? '';
    expect(swapped).not.toBe(upserts[0]?.body);
    expect((await validateEnvelopes([swapped])).join('\n')).toMatch(/label/);
  });
});
