/**
 * crm-sync plans from the aggregates lookup-core's store yields, without importing lookup-core at
 * run time: both packages take the types from one definition, so what `readAggregates()` yields
 * is a planner input as it is. Checked by tsc (vitest's typecheck mode).
 */
import type {
  LookupStore,
  ActivityAggregate as StoredActivity,
  CompanyAggregate as StoredCompany,
  ContactAggregate as StoredContact,
  ObservedCompany as StoredObservedCompany,
  PurchaseIntent as StoredPurchaseIntent,
  SessionSource as StoredSessionSource,
} from '@service/lookup-core';
import { describe, expectTypeOf, it } from 'vitest';
import type {
  ActivityAggregate,
  CompanyAggregate,
  ContactAggregate,
  ObservedCompany,
  PlanSyncInput,
  PurchaseIntent,
  SessionSource,
} from '../src/index.js';

type Yielded = ReturnType<LookupStore['readAggregates']> extends AsyncIterable<infer T> ? T : never;

describe('the aggregates crm-sync plans from', () => {
  it('are the types of lookup-core, field for field', () => {
    expectTypeOf<ObservedCompany>().toEqualTypeOf<StoredObservedCompany>();
    expectTypeOf<CompanyAggregate>().toEqualTypeOf<StoredCompany>();
    expectTypeOf<ContactAggregate>().toEqualTypeOf<StoredContact>();
    expectTypeOf<ActivityAggregate>().toEqualTypeOf<StoredActivity>();
    expectTypeOf<SessionSource>().toEqualTypeOf<StoredSessionSource>();
    expectTypeOf<PurchaseIntent>().toEqualTypeOf<StoredPurchaseIntent>();
  });

  it('take what the store yields as planner input, without a cast', () => {
    expectTypeOf<Yielded[]>().toExtend<PlanSyncInput['observed']>();
  });
});
