import type { PlanSyncInput, SyncPlan } from './plan-types.js';

export function planSync(input: PlanSyncInput): SyncPlan {
  void input;
  throw new Error('planSync: in progress');
}
