// Record types on Account, Contact and Lead: describe lists them in `recordTypeInfos` (the
// master one included), records carry RecordTypeId, and a create without one gets the user's
// default record type of the object.
// https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_sobject_describe.htm
// https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/sforce_api_objects_recordtype.htm
import { customFieldDescribe, type FieldDescribe, type Org } from './org.ts';

const OBJECTS = ['Account', 'Contact', 'Lead'];

/** The master record type's id, the same in every org. */
const MASTER = '012000000000000AAA';

const column = (name: string, type: FieldDescribe['type']): [string, FieldDescribe] => [
  name,
  { ...customFieldDescribe(name, name, type), custom: false },
];

/** Adds the RecordType object, a default and a second record type per object, and RecordTypeId. */
export function installRecordTypes(org: Org): void {
  org.fields.set(
    'RecordType',
    new Map([
      column('Id', 'id'),
      column('Name', 'string'),
      column('DeveloperName', 'string'),
      column('SobjectType', 'string'),
      column('IsActive', 'boolean'),
    ]),
  );
  org.records.set('RecordType', new Map());
  for (const object of OBJECTS) {
    org.fields.get(object)?.set(...column('RecordTypeId', 'reference'));
    for (const [name, isDefault] of [
      ['Standard', true],
      ['Partner', false],
    ] as const) {
      org.insert('RecordType', {
        Name: `${name} ${object}`,
        DeveloperName: `${name}_${object}`,
        SobjectType: object,
        IsActive: true,
        IsDefault: isDefault,
      });
    }
  }
}

function recordTypesOf(org: Org, object: string) {
  return [...(org.records.get('RecordType')?.values() ?? [])].filter(
    (t) => t.SobjectType === object,
  );
}

/** describe's `recordTypeInfos` of `object`: its record types and the master, when it has any. */
export function recordTypeInfos(org: Org, object: string) {
  const types = recordTypesOf(org, object);
  if (types.length === 0) return {};
  const info = (id: string, name: string, developerName: string, isDefault: boolean) => ({
    active: true,
    available: true,
    defaultRecordTypeMapping: isDefault,
    developerName,
    master: id === MASTER,
    name,
    recordTypeId: id,
  });
  return {
    recordTypeInfos: [
      ...types.map((t) =>
        info(t.Id, String(t.Name), String(t.DeveloperName), t.IsDefault === true),
      ),
      info(MASTER, 'Master', 'Master', false),
    ],
  };
}

/**
 * The record type a create gets: the one sent, or the user's default one. A RecordTypeId that is
 * not one of the object's is refused (INVALID_CROSS_REFERENCE_KEY).
 * https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_concepts_core_data_objects.htm#statuscode
 */
export function withRecordType(
  org: Org,
  object: string,
  values: Record<string, unknown>,
):
  | { values: Record<string, unknown> }
  | { error: { statusCode: string; message: string; fields: string[] } } {
  const types = recordTypesOf(org, object);
  if (types.length === 0) return { values };
  const sent = values.RecordTypeId;
  if (sent === undefined || sent === null || sent === '') {
    const byDefault = types.find((t) => t.IsDefault === true);
    return { values: { ...values, RecordTypeId: byDefault?.Id } };
  }
  if (types.some((t) => t.Id === sent)) return { values };
  return {
    error: {
      statusCode: 'INVALID_CROSS_REFERENCE_KEY',
      message: `Record Type ID: this ID value isn't valid for the user: ${String(sent)}`,
      fields: ['RecordTypeId'],
    },
  };
}
