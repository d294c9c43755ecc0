/**
 * Session traffic source, classified from the referrer and UTM tags into the value list of
 * `ServiceFirstTouch__c` / `ServiceLatestTouch__c` (docs/crm-sync/catalogue.md).
 */
import type { SessionSource } from '@service/lookup-contract';
import type { trafficSources } from '../model/catalogue.js';

/** A session source value the CRM fields take. */
export type TrafficSource = (typeof trafficSources)[number];

const PAID_MEDIUM =
  /^(cpc|ppc|cpm|cpv|paid|paid[-_ ]?(search|social|shopping|media)|sem|display|ads?)$/;
const SHOPPING = /shopping|pla\b|product[-_ ]?listing/;
const CROSS_NETWORK = /cross[-_ ]?network|pmax|performance[-_ ]?max/;
const SOCIAL =
  /^(linkedin|facebook|fb|instagram|ig|meta|twitter|x|reddit|tiktok|pinterest|snapchat|youtube)$/;
const SOCIAL_MEDIUM = /social/;

/**
 * `null` for traffic outside the five values (an organic referral, an unpaid campaign): the field
 * is then left unwritten rather than filled with a value that says something untrue.
 */
export function classifyTrafficSource(session: SessionSource): TrafficSource | null {
  const source = (session.utm.source ?? '').trim().toLowerCase();
  const medium = (session.utm.medium ?? '').trim().toLowerCase();
  const campaign = (session.utm.campaign ?? '').trim().toLowerCase();
  if (CROSS_NETWORK.test(medium) || CROSS_NETWORK.test(campaign) || CROSS_NETWORK.test(source)) {
    return 'Cross Network';
  }
  if (PAID_MEDIUM.test(medium)) {
    if (SHOPPING.test(medium) || SHOPPING.test(source) || SHOPPING.test(campaign)) {
      return 'Paid Shopping';
    }
    if (SOCIAL_MEDIUM.test(medium) || SOCIAL.test(source)) return 'Paid Social';
    return 'Paid Search';
  }
  if (!source && !medium && !campaign && session.referrer.trim() === '') return 'Direct';
  return null;
}
