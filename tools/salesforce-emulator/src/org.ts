// The emulated org's data: objects, their fields as describe shows them, records, users,
// profiles and permissions. Shapes follow Salesforce's REST documentation.

/** A field's type as describe names it. */
export type FieldType =
  | 'id'
  | 'string'
  | 'textarea'
  | 'url'
  | 'email'
  | 'phone'
  | 'picklist'
  | 'reference'
  | 'boolean'
  | 'double'
  | 'date'
  | 'datetime';

/** A field as the REST describe resource shows it (the parts the integration reads). */
export interface FieldDescribe {
  name: string;
  label: string;
  type: FieldType;
  length: number;
  precision: number;
  scale: number;
  custom: boolean;
  nillable: boolean;
  createable: boolean;
  updateable: boolean;
  extraTypeInfo: string | null;
  /** A picklist's values; a dependent one's say by `validFor` which controlling values allow them. */
  picklistValues?: PicklistEntry[];
  /** Only the listed values are accepted (INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST otherwise). */
  restrictedPicklist?: boolean;
  /** The controlling field of a dependent picklist (a state code's country code). */
  controllerName?: string | null;
  dependentPicklist?: boolean;
}

/**
 * One value of a picklist as describe shows it. `validFor`: base64 bits, one per value of the
 * controlling field in its order (most significant bit first), set where this value is allowed.
 * https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_describesobjects_describesobjectresult.htm
 */
export interface PicklistEntry {
  value: string;
  label: string;
  active: boolean;
  defaultValue: boolean;
  validFor?: string;
}

/** A record as the org stores it: its fields by API name, and its Id. */
export type SfRecord = Record<string, unknown> & { Id: string };

/** A lookup between two objects, as SOQL follows it (`Account.Name`, a subquery). */
export interface Relationship {
  idField: string;
  target: string;
}

const KEY_PREFIX: Record<string, string> = {
  Account: '001',
  Contact: '003',
  Lead: '00Q',
  Opportunity: '006',
  User: '005',
  Profile: '00e',
  PermissionSet: '0PS',
  PermissionSetAssignment: '0Pa',
  FieldPermissions: '01k',
  FeedItem: '0D5',
  RecordType: '012',
  ObjectPermissions: '110',
};

/**
 * System fields of the data objects: `SystemModstamp` changes on every change to the record
 * (by a user or by the system), `IsDeleted` is true once it is in the Recycle Bin (seen only
 * through queryAll).
 * https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/system_fields.htm
 */
const SYSTEM_FIELDS: [string, FieldType, number?][] = [
  ['SystemModstamp', 'datetime'],
  ['IsDeleted', 'boolean'],
];

/** The text fields of a compound address: City 40, State/Province 80, Country 80. */
const address = (prefix: string): [string, FieldType, number][] => [
  [`${prefix}City`, 'string', 40],
  [`${prefix}State`, 'string', 80],
  [`${prefix}Country`, 'string', 80],
];

/**
 * The standard fields, with the length describe gives the text ones (the rest: 255).
 * https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/sforce_api_objects_account.htm
 * https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/sforce_api_objects_contact.htm
 * https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/sforce_api_objects_lead.htm
 * https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/compound_fields_address.htm
 */
const STANDARD_FIELDS: Record<string, [string, FieldType, number?][]> = {
  Account: [
    ['Id', 'id'],
    ['Name', 'string', 255],
    ['Website', 'url', 255],
    ['Phone', 'phone', 40],
    ['Type', 'picklist'],
    ['OwnerId', 'reference'],
    ['CreatedDate', 'datetime'],
    ['LastModifiedDate', 'datetime'],
    ...address('Billing'),
    ...address('Shipping'),
    ...SYSTEM_FIELDS,
  ],
  Contact: [
    ['Id', 'id'],
    ['AccountId', 'reference'],
    ['Name', 'string', 121],
    ['FirstName', 'string', 40],
    ['LastName', 'string', 80],
    ['Title', 'string', 128],
    ['Email', 'email', 80],
    ['Phone', 'phone', 40],
    ['OwnerId', 'reference'],
    ['CreatedDate', 'datetime'],
    ['LastActivityDate', 'date'],
    ['LastModifiedDate', 'datetime'],
    ...address('Mailing'),
    ...address('Other'),
    ...SYSTEM_FIELDS,
  ],
  Lead: [
    ['Id', 'id'],
    ['Name', 'string', 121],
    ['FirstName', 'string', 40],
    ['LastName', 'string', 80],
    ['Company', 'string', 255],
    ['Title', 'string', 128],
    ['Email', 'email', 80],
    ['Phone', 'phone', 40],
    ['Website', 'url', 255],
    ['MobilePhone', 'phone', 40],
    ['OwnerId', 'reference'],
    ['Status', 'picklist'],
    ['IsConverted', 'boolean'],
    ['ConvertedContactId', 'reference'],
    ['ConvertedAccountId', 'reference'],
    ['CreatedDate', 'datetime'],
    ['LastActivityDate', 'date'],
    ['LastModifiedDate', 'datetime'],
    ...address(''),
    ...SYSTEM_FIELDS,
  ],
  Opportunity: [
    ['Id', 'id'],
    ['Name', 'string'],
    ['AccountId', 'reference'],
    ['CloseDate', 'date'],
    ['Type', 'picklist'],
    ['StageName', 'picklist'],
    ['IsClosed', 'boolean'],
    ['IsWon', 'boolean'],
    ['LastModifiedDate', 'datetime'],
    ...SYSTEM_FIELDS,
  ],
  User: [
    ['Id', 'id'],
    ['Name', 'string'],
    ['Email', 'email'],
    ['Username', 'string'],
    ['ProfileId', 'reference'],
  ],
  Profile: [
    ['Id', 'id'],
    ['Name', 'string'],
    ['FullName', 'string'],
  ],
  // A post on a record's feed: ParentId filters; Body (textarea) is selectable, not filterable.
  // https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/sforce_api_objects_feeditem.htm
  FeedItem: [
    ['Id', 'id'],
    ['ParentId', 'reference'],
    ['Type', 'string'],
    ['Body', 'textarea'],
    ['IsRichText', 'boolean'],
    ['CreatedDate', 'datetime'],
  ],
  PermissionSet: [
    ['Id', 'id'],
    ['Name', 'string'],
    ['Label', 'string'],
    ['IsOwnedByProfile', 'boolean'],
    ['ProfileId', 'reference'],
    ['PermissionsModifyAllData', 'boolean'],
    ['PermissionsCustomizeApplication', 'boolean'],
    ['PermissionsManageProfilesPermissionsets', 'boolean'],
  ],
  PermissionSetAssignment: [
    ['Id', 'id'],
    ['AssigneeId', 'reference'],
    ['PermissionSetId', 'reference'],
  ],
  // Tooling API metadata of the fields themselves, FLS-hidden ones included:
  // https://developer.salesforce.com/docs/atlas.en-us.api_tooling.meta/api_tooling/tooling_api_objects_fielddefinition.htm
  FieldDefinition: [
    ['Id', 'id'],
    ['EntityDefinitionId', 'reference'],
    ['QualifiedApiName', 'string'],
    ['Label', 'string'],
    ['DataType', 'string'],
    ['Length', 'double'],
    ['Precision', 'double'],
    ['Scale', 'double'],
  ],
  EntityDefinition: [
    ['Id', 'id'],
    ['QualifiedApiName', 'string'],
  ],
  FieldPermissions: [
    ['Id', 'id'],
    ['ParentId', 'reference'],
    ['SobjectType', 'string'],
    ['Field', 'string'],
    ['PermissionsRead', 'boolean'],
    ['PermissionsEdit', 'boolean'],
  ],
};

/**
 * Parent-to-child relationships, named by the plural of the child object, as a subquery of the
 * parent's SELECT uses them (`SELECT Id, (SELECT IsWon FROM Opportunities) FROM Account`).
 * https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/sforce_api_calls_soql_relationships_query_using.htm
 */
const CHILD_RELATIONSHIPS: Record<string, Record<string, Relationship>> = {
  Account: {
    Opportunities: { idField: 'AccountId', target: 'Opportunity' },
    Contacts: { idField: 'AccountId', target: 'Contact' },
  },
};

const RELATIONSHIPS: Record<string, Record<string, Relationship>> = {
  Account: { Owner: { idField: 'OwnerId', target: 'User' } },
  Contact: {
    Owner: { idField: 'OwnerId', target: 'User' },
    Account: { idField: 'AccountId', target: 'Account' },
  },
  Lead: { Owner: { idField: 'OwnerId', target: 'User' } },
  Opportunity: { Account: { idField: 'AccountId', target: 'Account' } },
  User: { Profile: { idField: 'ProfileId', target: 'Profile' } },
  PermissionSetAssignment: {
    PermissionSet: { idField: 'PermissionSetId', target: 'PermissionSet' },
  },
  FieldPermissions: { Parent: { idField: 'ParentId', target: 'PermissionSet' } },
  FieldDefinition: {
    EntityDefinition: { idField: 'EntityDefinitionId', target: 'EntityDefinition' },
  },
};

/** FieldDefinition.DataType shows the type as the setup UI does, e.g. `Text(80)`. */
function dataType(field: FieldDescribe): string {
  switch (field.type) {
    case 'string':
      return `Text(${field.length})`;
    case 'textarea':
      return `Long Text Area(${field.length})`;
    case 'double':
      return `Number(${field.precision - field.scale}, ${field.scale})`;
    case 'datetime':
      return 'Date/Time';
    case 'boolean':
      return 'Checkbox';
    default:
      return field.type.charAt(0).toUpperCase() + field.type.slice(1);
  }
}

/** Objects the REST data API may create or update (the rest are read-only here). */
export const WRITABLE = new Set([
  'Account',
  'Contact',
  'Lead',
  'Opportunity',
  // Assigning a permission set to a user is a create of this object.
  // https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/sforce_api_objects_permissionsetassignment.htm
  'PermissionSetAssignment',
]);

const REQUIRED_ON_CREATE: Record<string, string[]> = {
  Account: ['Name'],
  Contact: ['LastName'],
  Lead: ['LastName', 'Company'],
  Opportunity: ['Name', 'CloseDate', 'StageName'],
  PermissionSetAssignment: ['AssigneeId', 'PermissionSetId'],
};

/** Contact and Lead `Name` is compound (FirstName, LastName): read-only, unlike Account's. */
const COMPOUND_NAME = new Set(['Contact', 'Lead', 'User']);

function describeField(
  object: string,
  name: string,
  type: FieldType,
  length?: number,
): FieldDescribe {
  const writable = name !== 'Id' && !(name === 'Name' && COMPOUND_NAME.has(object));
  return {
    name,
    label: name,
    type,
    length: length ?? (['string', 'url', 'email', 'picklist'].includes(type) ? 255 : 0),
    precision: 0,
    scale: 0,
    custom: false,
    nillable: name !== 'Id',
    createable: writable,
    updateable: writable,
    extraTypeInfo: null,
  };
}

/** A custom field as describe shows it, before its type's own sizes (length, precision, scale). */
export function customFieldDescribe(name: string, label: string, type: FieldType): FieldDescribe {
  return {
    name,
    label,
    type,
    length: 0,
    precision: 0,
    scale: 0,
    custom: true,
    nillable: true,
    createable: true,
    updateable: true,
    extraTypeInfo: null,
  };
}

/** The profile the org's user has, and its system permissions. */
export interface ProfileSetup {
  name: string;
  /** Tooling API full name, e.g. `Admin` for System Administrator. */
  fullName: string;
  modifyAllData: boolean;
  customizeApplication: boolean;
  manageProfiles: boolean;
}

/** The emulated org's data: objects and their fields, records, users, profiles, permissions, the feed. */
export class Org {
  readonly orgId = '00D5g000004abcdEAA';
  readonly fields = new Map<string, Map<string, FieldDescribe>>();
  readonly records = new Map<string, Map<string, SfRecord>>();
  /** `Object.Field` names hidden by field-level security: absent from describe, INVALID_FIELD in SOQL. */
  readonly hidden = new Set<string>();
  /** `Object.Field` names the user may read but not edit (field-level security read-only). */
  readonly readOnly = new Set<string>();
  /** `Object.Field` names describe still shows but SOQL rejects (a describe cached before a change). */
  readonly rejectedInQuery = new Set<string>();
  /** Per-record failures returned by writes: record id -> error. */
  readonly recordErrors = new Map<string, { statusCode: string; message: string }>();
  /** Object names the user cannot read (absent from the global describe). */
  readonly unreadableObjects = new Set<string>();
  readonly feed: SfRecord[] = [];
  /** Ids of records purged from the Recycle Bin (`emptyRecycleBin`). */
  readonly purged = new Set<string>();
  /** CustomField attributes describe does not show (help text, history tracking): `Object.Field` -> element -> text. */
  readonly customFieldAttributes = new Map<string, Record<string, string>>();
  /** `Object.Field` names in the org's Lead Custom Field Mapping. */
  readonly leadConversionMapped = new Set<string>();
  /** Private sharing on Account, Contact and Lead (see sharing.ts). */
  limitedSharing = false;
  private sequence = 0;
  /** How far the org's clock is ahead of this machine's (`advance`). */
  private offset = 0;
  userId = '';

  constructor(profile: ProfileSetup = SYSTEM_ADMINISTRATOR) {
    for (const [object, fields] of Object.entries(STANDARD_FIELDS)) {
      this.fields.set(
        object,
        new Map(fields.map(([n, t, length]) => [n, describeField(object, n, t, length)])),
      );
      this.records.set(object, new Map());
    }
    const profileId = this.insert('Profile', { Name: profile.name, FullName: profile.fullName });
    const permissionSetId = this.insert('PermissionSet', {
      Name: `X00ex000000${profile.fullName}`,
      IsOwnedByProfile: true,
      ProfileId: profileId,
      PermissionsModifyAllData: profile.modifyAllData,
      PermissionsCustomizeApplication: profile.customizeApplication,
      PermissionsManageProfilesPermissionsets: profile.manageProfiles,
    });
    this.userId = this.insert('User', {
      Name: 'Ada Admin',
      Email: 'ada@example.com',
      Username: 'ada@example.com.org',
      ProfileId: profileId,
    });
    this.insert('PermissionSetAssignment', {
      AssigneeId: this.userId,
      PermissionSetId: permissionSetId,
    });
  }

  /** A new 18-character Id with the object's key prefix. */
  newId(object: string): string {
    this.sequence += 1;
    const prefix = KEY_PREFIX[object] ?? '000';
    return `${prefix}5g00000${this.sequence.toString(36).toUpperCase().padStart(5, '0')}AAA`.slice(
      0,
      18,
    );
  }

  /** Time passes (between two runs of a sync, say): the next stamps are that much later. */
  advance(seconds: number): void {
    this.offset += seconds * 1000;
  }

  /** The org's clock, in ms since the epoch: this machine's, `advance`d. */
  clock(): number {
    return Date.now() + this.offset;
  }

  /**
   * The server's time, in whole seconds as Salesforce stamps records (CreatedDate,
   * LastModifiedDate, SystemModstamp are dateTimes: precision of one second).
   * https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/primitive_data_types.htm
   */
  now(): string {
    const seconds = Math.floor(this.clock() / 1000) * 1000;
    return new Date(seconds).toISOString().replace('Z', '+0000');
  }

  /** The records of `object` by Id; throws for an object the org does not have. */
  table(object: string): Map<string, SfRecord> {
    const table = this.records.get(object);
    if (!table) throw new Error(`unknown object ${object}`);
    return table;
  }

  /** Stores a new record of `object` as a create by the org's user would; returns its Id. */
  insert(object: string, values: Record<string, unknown>): string {
    const id = this.newId(object);
    const stamp = this.now();
    this.table(object).set(id, {
      ...(STANDARD_FIELDS[object]?.some(([n]) => n === 'CreatedDate')
        ? { CreatedDate: stamp }
        : {}),
      ...(STANDARD_FIELDS[object]?.some(([n]) => n === 'LastModifiedDate')
        ? { LastModifiedDate: stamp }
        : {}),
      ...(STANDARD_FIELDS[object]?.some(([n]) => n === 'OwnerId') ? { OwnerId: this.userId } : {}),
      ...(this.hasSystemFields(object) ? { SystemModstamp: stamp, IsDeleted: false } : {}),
      ...this.stored(object, values),
      Id: id,
    });
    return id;
  }

  private hasSystemFields(object: string): boolean {
    return STANDARD_FIELDS[object]?.some(([n]) => n === 'SystemModstamp') === true;
  }

  /**
   * Values as Salesforce stores them: a dateTime keeps whole seconds ("full timestamps with a
   * precision of one second") and is answered in UTC as `...T17:30:00.000+0000`; a number is
   * rounded to its field's scale.
   * https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/primitive_data_types.htm
   */
  stored(object: string, values: Record<string, unknown>): Record<string, unknown> {
    const fields = this.fields.get(object);
    return Object.fromEntries(
      Object.entries(values).map(([name, value]) => {
        const type = fields?.get(name)?.type;
        if (type === 'datetime' && typeof value === 'string') {
          const instant = Date.parse(value.replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
          if (!Number.isNaN(instant)) {
            const seconds = new Date(Math.floor(instant / 1000) * 1000).toISOString();
            return [name, seconds.replace('Z', '+0000')];
          }
        }
        if (type === 'double' && typeof value === 'number') {
          return [name, Number(value.toFixed(fields?.get(name)?.scale ?? 0))];
        }
        return [name, value];
      }),
    );
  }

  /** A change to a record: its values as stored, and its modification stamps moved on. */
  change(object: string, record: SfRecord, values: Record<string, unknown>): void {
    const stamp = this.now();
    Object.assign(record, this.stored(object, values), {
      LastModifiedDate: stamp,
      ...(this.hasSystemFields(object) ? { SystemModstamp: stamp } : {}),
    });
    this.derive(object, record);
  }

  /** Moves a record to the Recycle Bin (an org-side delete, as a user in the UI would). */
  recycle(object: string, id: string): void {
    const record = this.table(object).get(id);
    if (!record) throw new Error(`no ${object} ${id}`);
    Object.assign(record, { IsDeleted: true, SystemModstamp: this.now() });
  }

  /**
   * Empties the Recycle Bin (of `ids`, or all of it), as `emptyRecycleBin()` or the automatic
   * purge of a full bin do: the records leave queryAll too (after emptyRecycleBin() queryAll may
   * still show them for about a day; this is the state after), and an update of one answers
   * ENTITY_IS_DELETED.
   * https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_emptyrecyclebin.htm
   */
  emptyRecycleBin(ids?: readonly string[]): void {
    for (const table of this.records.values())
      for (const [id, record] of table)
        if (record.IsDeleted === true && (ids === undefined || ids.includes(id))) {
          table.delete(id);
          this.purged.add(id);
        }
  }

  /**
   * A text post on `parentId`'s feed, as Chatter's `POST /chatter/feed-elements` makes it: a
   * FeedItem of Type TextPost whose Body is the text of its message segments (HTML when
   * `isRichText`), queryable by ParentId like any FeedItem.
   * https://developer.salesforce.com/docs/atlas.en-us.chatterapi.meta/chatterapi/connect_resources_feed_element_post.htm
   */
  postToFeed(parentId: string, text: string, isRichText = false): string {
    return this.insert('FeedItem', {
      ParentId: parentId,
      Type: 'TextPost',
      Body: text,
      IsRichText: isRichText,
    });
  }

  /** The object a record Id belongs to, if the org holds it. */
  objectOfId(id: string): string | undefined {
    for (const [object, table] of this.records) if (table.has(id)) return object;
    return undefined;
  }

  /** The parent relationship `name` of `object` (`Account` of a Contact). */
  relationship(object: string, name: string): Relationship | undefined {
    return RELATIONSHIPS[object]?.[name];
  }

  /** The child relationship `name` of `object` (`Contacts` of an Account). */
  childRelationship(object: string, name: string): Relationship | undefined {
    return CHILD_RELATIONSHIPS[object]?.[name];
  }

  /**
   * The connecting user's field-level security on a field. A custom field is readable or
   * editable only through a FieldPermissions row of a permission set assigned to the user (a
   * profile's own included); standard fields here are governed by `hidden` and `readOnly`.
   * https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/sforce_api_objects_fieldpermissions.htm
   */
  access(object: string, field: string): 'none' | 'read' | 'edit' {
    const key = `${object}.${field}`;
    if (!this.fields.get(object)?.has(field) || this.hidden.has(key)) return 'none';
    let level: 'none' | 'read' | 'edit' = 'edit';
    if (field.endsWith('__c')) {
      const assigned = new Set(
        [...this.table('PermissionSetAssignment').values()]
          .filter((a) => a.AssigneeId === this.userId)
          .map((a) => a.PermissionSetId),
      );
      const grants = [...this.table('FieldPermissions').values()].filter(
        (p) => p.Field === key && assigned.has(p.ParentId),
      );
      level = grants.some((p) => p.PermissionsEdit === true)
        ? 'edit'
        : grants.some((p) => p.PermissionsRead === true)
          ? 'read'
          : 'none';
    }
    return level === 'edit' && this.readOnly.has(key) ? 'read' : level;
  }

  /**
   * The fields describe shows the user: fields hidden by field-level security are left out, and
   * read-only ones are neither createable nor updateable.
   * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_sobject_describe.htm
   */
  describe(object: string): FieldDescribe[] {
    const fields = this.fields.get(object);
    if (!fields) return [];
    return [...fields.values()].flatMap((f) => {
      const access = this.access(object, f.name);
      if (access === 'none') return [];
      return access === 'read' ? [{ ...f, createable: false, updateable: false }] : [f];
    });
  }

  /** Fills the Tooling API's FieldDefinition and EntityDefinition from the fields as they are now. */
  refreshDefinitions(): void {
    const entities = this.table('EntityDefinition');
    const definitions = this.table('FieldDefinition');
    entities.clear();
    definitions.clear();
    for (const [object, fields] of this.fields) {
      entities.set(object, { Id: object, QualifiedApiName: object });
      for (const field of fields.values()) {
        const Id = `${object}.${field.name}`;
        definitions.set(Id, {
          Id,
          EntityDefinitionId: object,
          QualifiedApiName: field.name,
          Label: field.label,
          DataType: dataType(field),
          Length: field.length,
          Precision: field.precision,
          Scale: field.scale,
        });
      }
    }
  }

  /** Can SOQL select this column? */
  queryable(object: string, field: string): boolean {
    if (this.rejectedInQuery.has(`${object}.${field}`)) return false;
    return this.access(object, field) !== 'none';
  }

  /** The fields a create of `object` requires that `values` leaves empty. */
  requiredMissing(object: string, values: Record<string, unknown>): string[] {
    return (REQUIRED_ON_CREATE[object] ?? []).filter(
      (f) => values[f] === undefined || values[f] === null || values[f] === '',
    );
  }

  /** Compute fields derived from others (Name of people). */
  derive(object: string, record: SfRecord): void {
    if (object === 'Contact' || object === 'Lead') {
      record.Name = [record.FirstName, record.LastName].filter(Boolean).join(' ');
    }
    if (object === 'Opportunity') {
      const stage = String(record.StageName ?? '');
      record.IsWon = stage === 'Closed Won';
      record.IsClosed = stage.startsWith('Closed');
    }
  }

  /** Adds or replaces a field of `object`; true when it is new. */
  addCustomField(object: string, field: FieldDescribe): boolean {
    const fields = this.fields.get(object);
    if (!fields) throw new Error(`unknown object ${object}`);
    const created = !fields.has(field.name);
    fields.set(field.name, field);
    return created;
  }

  /** The Id of the profile whose Metadata API full name is `fullName` (`Admin`). */
  profileIdOf(fullName: string): string | undefined {
    for (const profile of this.table('Profile').values()) {
      if (profile.FullName === fullName) return profile.Id;
    }
    return undefined;
  }

  /** Grant or update field permissions on a profile's own permission set. */
  setFieldPermission(profileId: string, field: string, read: boolean, edit: boolean): void {
    const permissionSet = [...this.table('PermissionSet').values()].find(
      (p) => p.ProfileId === profileId && p.IsOwnedByProfile === true,
    );
    if (!permissionSet) throw new Error(`no permission set for profile ${profileId}`);
    this.grant(permissionSet.Id, field, read, edit);
  }

  /** A permission set not owned by a profile, by API name (`Name`). */
  permissionSetNamed(name: string): SfRecord | undefined {
    return [...this.table('PermissionSet').values()].find(
      (p) => p.Name === name && p.IsOwnedByProfile !== true,
    );
  }

  /** Grant or update field permissions on a permission set. */
  grant(permissionSetId: string, field: string, read: boolean, edit: boolean): void {
    const table = this.table('FieldPermissions');
    const existing = [...table.values()].find(
      (p) => p.ParentId === permissionSetId && p.Field === field,
    );
    const values = {
      ParentId: permissionSetId,
      SobjectType: field.split('.')[0],
      Field: field,
      PermissionsRead: read || edit,
      PermissionsEdit: edit,
    };
    if (existing) Object.assign(existing, values);
    else this.insert('FieldPermissions', values);
  }
}

/** The System Administrator profile (the org's user by default). */
export const SYSTEM_ADMINISTRATOR: ProfileSetup = {
  name: 'System Administrator',
  fullName: 'Admin',
  modifyAllData: true,
  customizeApplication: true,
  manageProfiles: true,
};

/** The Standard User profile: no Modify All Data, Customize Application or Manage Profiles. */
export const STANDARD_USER: ProfileSetup = {
  name: 'Standard User',
  fullName: 'Standard',
  modifyAllData: false,
  customizeApplication: false,
  manageProfiles: false,
};
