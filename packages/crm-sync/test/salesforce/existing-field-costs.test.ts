// What converting a service field the org has otherwise would cost, as field setup reports it.
import { describe, expect, it } from 'vitest';
import { customFields } from '../../src/index.js';
import {
  compareExisting,
  convertingComponent,
} from '../../src/salesforce/setup/existing-fields.js';

const field = (fullName: string) => {
  const found = customFields.find((f) => f.fullName === fullName);
  if (!found) throw new Error(`no ${fullName}`);
  return found;
};
const definition = (
  DataType: string,
  extra: Partial<Record<'Length' | 'Precision' | 'Scale', number>> = {},
) => ({
  QualifiedApiName: 'x',
  Label: 'Service - Matched Signals',
  DataType,
  Length: extra.Length ?? null,
  Precision: extra.Precision ?? null,
  Scale: extra.Scale ?? null,
});

describe('compareExisting', () => {
  it('names the cost of shortening, lengthening, rounding and converting from a Checkbox', () => {
    const signals = field('Account.ServiceIntents__c'); // Long Text Area(32768)
    expect(
      compareExisting(signals, definition('Long Text Area(131072)', { Length: 131072 }))?.costs,
    ).toEqual([
      'shortening Long Text Area(131072) to Long Text Area(32768) cuts values longer than 32768 characters',
    ]);
    expect(
      compareExisting(signals, definition('Long Text Area(1000)', { Length: 1000 }))?.costs,
    ).toEqual(['lengthening Long Text Area(1000) to Long Text Area(32768) loses no values']);
    const sessions = field('Account.ServiceSessions__c'); // Number(18, 0)
    const rounded = compareExisting(sessions, {
      ...definition('Number(16, 2)', { Precision: 18, Scale: 2 }),
      Label: sessions.label,
    });
    expect(rounded?.differences).toEqual(['precision/scale']);
    expect(rounded?.costs).toEqual([
      'changing Number(16, 2) to Number(18, 0) rounds values to 0 decimal places',
    ]);
    expect(compareExisting(signals, definition('Checkbox'))?.costs[0]).toBe(
      'converting Checkbox to Long Text Area deletes its values',
    );
    expect(
      compareExisting(field('Account.ServiceFirstSeen__c'), definition('Text(40)'))?.costs[0],
    ).toBe('converting Text to Date/Time deletes its values');
  });

  it('sees no difference in a field made as the catalogue says', () => {
    const sessions = field('Account.ServiceSessions__c');
    expect(
      compareExisting(sessions, {
        ...definition('Number(18, 0)', { Precision: 18, Scale: 0 }),
        Label: sessions.label,
      }),
    ).toBeUndefined();
  });
});

describe('convertingComponent', () => {
  it('keeps what the admin set that the new type takes, in the schema order', () => {
    const component = convertingComponent(field('Account.ServiceIntents__c'), {
      fullName: 'Account.ServiceIntents__c',
      label: 'Signals',
      inlineHelpText: 'What they looked at',
      trackHistory: true,
      externalId: true,
      length: 255,
      type: 'Text',
    });
    expect(Object.keys(component)).toEqual([
      'fullName',
      'description',
      'inlineHelpText',
      'label',
      'length',
      'trackHistory',
      'type',
      'visibleLines',
    ]);
    expect(component).toMatchObject({ label: 'Signals', length: 32768, type: 'LongTextArea' });
  });
});
