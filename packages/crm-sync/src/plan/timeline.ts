/** The text of a session-timeline feed post, from a person's aggregates. */
import type { ContactAggregate } from '@service/lookup-contract';
import { classifyTrafficSource } from './traffic-source.js';

export function timelineText(contact: ContactAggregate, motion: string): string {
  const minutes = Math.round(contact.activeSeconds / 60);
  const source = (s: ContactAggregate['firstSession']) =>
    (s && classifyTrafficSource(s)) ?? 'other';
  const { linkedin } = contact;
  return [
    `Service activity for ${contact.name ?? contact.email} (motion: ${motion})`,
    `First seen ${contact.firstSeen} (${source(contact.firstSession)}), last seen ${contact.lastSeen} (${source(contact.latestSession)})`,
    `${contact.sessions} sessions (${contact.highIntentSessions} high intent), ${contact.pageViews} page views, ${minutes} min on site`,
    `Purchase intent: ${contact.purchaseIntent ?? 'none'}`,
    `Signals: ${contact.signals.length > 0 ? contact.signals.join(', ') : 'none'}`,
    `LinkedIn: ${linkedin.impressions} impressions, ${linkedin.clicks} clicks, ${linkedin.likes} likes, ${linkedin.shares} shares, ${linkedin.comments} comments`,
  ].join('\n');
}
