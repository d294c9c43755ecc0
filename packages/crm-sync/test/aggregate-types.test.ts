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
  CrmSnapshot,
  ObservedCompany,
  PurchaseIntent,
  SessionSource,
  SyncPlan,
} from '../src/index.js';
import { planSync } from '../src/index.js';

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
    const fromArray = (crm: CrmSnapshot, observed: Yielded[]) => planSync({ crm, observed });
    expectTypeOf(fromArray).returns.toEqualTypeOf<SyncPlan>();
  });

  it("take the store's readAggregates() itself, and then answer a Promise of the plan", () => {
    const fromStore = (crm: CrmSnapshot, store: LookupStore) =>
      planSync({ crm, observed: store.readAggregates() });
    expectTypeOf(fromStore).returns.toEqualTypeOf<Promise<SyncPlan>>();
  });
});
