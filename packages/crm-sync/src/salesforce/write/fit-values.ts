/**
 * The values of each create and update, fitted to the fields as the org's describe gives them
 * before they are sent, so that no record is refused for a value the org would not take: text
 * cut to the field's length (in UTF-16 code units, as Salesforce counts, never between the two
 * halves of a surrogate pair), an email that is not an address and a value a restricted
 * picklist does not list left out, countries and states written as the org takes them
 * (`address-codes.ts`). Each change is reported with the step's outcome.
 * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_sobject_describe.htm
 */
import type { CrmObject, FieldValue, FieldValues } from '../../model/objects.js';
import { holdsValue } from '../../plan/stored-values.js';
import type {
  CreateStep,
  CrmFieldValues,
  PlanStep,
  SkipStep,
  UpdateStep,
} from '../../plan/types.js';
import type { DescribeField } from '../read/reads.js';
import {
  ADDRESS_PREFIXES,
  addressParts,
  countryCode,
  countryName,
  stateCode,
} from './address-codes.js';

/** A value changed or left out to fit its field. */
export interface FieldFit {
  readonly field: string;
  readonly change: 'cut' | 'dropped';
  /** Why, in words, e.g. `cut to 40 characters` or `"Deutschland" is not a country of the org`. */
  readonly reason: string;
}

type Described = ReadonlyMap<string, DescribeField>;

/** Values being fitted: a field left out is undefined until the values are handed on. */
type FittedValues = Record<string, FieldValue | undefined>;

/**
 * The address form Salesforce recognizes on email fields: RFC characters before the `@` (not
 * starting with a dot), dot-separated labels of letters, digits and hyphens after it.
 * https://help.salesforce.com/s/articleView?id=000384328&type=1
 */
const EMAIL =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-][A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]*@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/;

/** `value` cut to `length` UTF-16 code units, one less where the cut would split a pair. */
export function cutToLength(value: string, length: number): string {
  if (value.length <= length) return value;
  const last = value.charCodeAt(length - 1);
  return value.slice(0, last >= 0xd800 && last <= 0xdbff ? length - 1 : length);
}

/** Countries and states of one address, as the org takes them (see `address-codes.ts`). */
function fitAddress(prefix: string, fields: FittedValues, described: Described) {
  const [country, countryCodeField, state, stateCodeField] = addressParts(prefix) as [
    string,
    string,
    string,
    string,
  ];
  const fits: FieldFit[] = [];
  const countryInput = fields[countryCodeField] ?? fields[country];
  if (typeof countryInput !== 'string' || countryInput.trim() === '') return fits;
  const codes = described.get(countryCodeField.toLowerCase());
  if (!codes) {
    fields[country] = countryName(countryInput);
    return fits;
  }
  const drop = (names: readonly string[], reason: string) => {
    for (const name of names.filter((n) => fields[n] !== undefined)) {
      fields[name] = undefined;
      fits.push({ field: name, change: 'dropped', reason });
    }
  };
  const code = countryCode(codes, countryInput);
  if (code === undefined) {
    drop(addressParts(prefix), `"${countryInput}" is not a country of the org's picklist`);
    return fits;
  }
  fields[country] = undefined;
  fields[countryCodeField] = code;
  const stateInput = fields[stateCodeField] ?? fields[state];
  if (typeof stateInput !== 'string' || stateInput.trim() === '') return fits;
  const states = described.get(stateCodeField.toLowerCase());
  const found = states && stateCode(states, codes, code, stateInput);
  if (found === undefined) {
    drop(
      [state, stateCodeField],
      `"${stateInput}" is not a state of ${code} in the org's picklist`,
    );
    return fits;
  }
  fields[state] = undefined;
  fields[stateCodeField] = found;
  return fits;
}

/** One value fitted to its field: kept, cut, or left out (undefined) with the reason. */
function fitValue(value: FieldValue, field: DescribeField): { value?: FieldValue; fit?: FieldFit } {
  if (typeof value !== 'string' || value === '') return { value };
  const length = field.length ?? 0;
  if (field.type === 'email' && (!EMAIL.test(value) || (length > 0 && value.length > length))) {
    return {
      fit: {
        field: field.name,
        change: 'dropped',
        reason: `"${value}" is not an email address the field takes`,
      },
    };
  }
  if (field.restrictedPicklist === true) {
    const listed = field.picklistValues?.find((e) => e.active && e.value === value);
    if (!listed) {
      return {
        fit: {
          field: field.name,
          change: 'dropped',
          reason: `"${value}" is not a value of the restricted picklist`,
        },
      };
    }
  }
  if (length > 0 && value.length > length) {
    return {
      value: cutToLength(value, length),
      fit: { field: field.name, change: 'cut', reason: `cut to ${length} characters` },
    };
  }
  return { value };
}

/** `values` of a write to `object`, fitted to the fields `described` gives. */
export function fitFields(
  object: CrmObject,
  values: FieldValues,
  described: Described,
): { fields: FieldValues; fits: FieldFit[] } {
  const fields: FittedValues = { ...values };
  const fits = ADDRESS_PREFIXES[object].flatMap((prefix) => fitAddress(prefix, fields, described));
  for (const [name, value] of Object.entries(fields)) {
    const field = described.get(name.toLowerCase());
    if (!field) continue; // a field describe does not show is the org's to refuse (refusals.ts)
    if (value === undefined) continue;
    const fitted = fitValue(value, field);
    if (fitted.fit) fits.push(fitted.fit);
    fields[name] = fitted.value;
  }
  const kept = Object.entries(fields).filter(
    (entry): entry is [string, FieldValue] => entry[1] !== undefined,
  );
  return { fields: Object.fromEntries(kept), fits };
}

/**
 * A create whose duplicate-check value had to be left out (an email the org does not take) is
 * not made: a later run could not find the record by it and would create it again.
 */
function unfindable(step: CreateStep, fits: readonly FieldFit[]): SkipStep {
  const { field } = step.duplicateCheck;
  const why = fits.find((fit) => fit.field === field)?.reason ?? `no ${field}`;
  return {
    type: 'skip',
    code: field === 'Email' ? 'invalid-email' : 'invalid-domain',
    candidates: [],
    subject: step.subject,
    reason: `${why}: without its ${field} a later run could not find the ${step.object}, so it is not created`,
  };
}

/**
 * An update's fitted fields without those the record already holds as fitted: the planner
 * compared the record with the planned value, and a value cut to a field shorter than it differs
 * from what the record then holds, so the same write came back every run.
 */
function notHeld(
  step: UpdateStep,
  fitted: FieldValues,
  record: CrmFieldValues | undefined,
): FieldValues {
  if (record === undefined) return fitted;
  return Object.fromEntries(
    Object.entries(fitted).filter(
      ([name, value]) =>
        value === step.fields[name] ||
        !Object.hasOwn(record, name) ||
        !holdsValue(value, record[name], undefined),
    ),
  );
}

/** An update with nothing left to write once fitted. */
const unchanged = (step: UpdateStep): SkipStep => ({
  type: 'skip',
  code: 'unchanged',
  candidates: [step.id],
  subject: step.subject,
  reason: `${step.object} ${step.id} already holds the values as the org stores them`,
});

/**
 * The plan's steps with the fields of each create and update fitted (a step with nothing to
 * fit is the same object), and what was changed, by fitted step. `held` gives a record as the
 * plan's CRM read it, so an update of values it already holds once fitted is not sent.
 */
export async function fitSteps(
  steps: readonly PlanStep[],
  describe: (object: CrmObject) => Promise<Described>,
  held: (id: string) => CrmFieldValues | undefined = () => undefined,
): Promise<{ steps: PlanStep[]; fits: Map<PlanStep, readonly FieldFit[]> }> {
  const fits = new Map<PlanStep, readonly FieldFit[]>();
  const fitted: PlanStep[] = [];
  for (const step of steps) {
    if (step.type !== 'create' && step.type !== 'update') {
      fitted.push(step);
      continue;
    }
    const result = fitFields(step.object, step.fields, await describe(step.object));
    const fields =
      step.type === 'update' ? notHeld(step, result.fields, held(step.id)) : result.fields;
    const same =
      Object.keys(fields).length === Object.keys(step.fields).length &&
      Object.entries(fields).every(([name, value]) => step.fields[name] === value);
    const lostKey =
      step.type === 'create' &&
      step.duplicateCheck.field in step.fields &&
      !(step.duplicateCheck.field in fields);
    const allHeld = Object.keys(fields).length === 0 && Object.keys(result.fields).length > 0;
    const next =
      step.type === 'update' && allHeld
        ? unchanged(step)
        : lostKey
          ? unfindable(step, result.fits)
          : same
            ? step
            : { ...step, fields };
    // A value left out because the record holds it was not fitted for this write.
    const reported = result.fits.filter((fit) => fit.change === 'dropped' || fit.field in fields);
    if (reported.length > 0 && !(next.type === 'skip' && next.code === 'unchanged'))
      fits.set(next, reported);
    fitted.push(next);
  }
  return { steps: fitted, fits };
}
