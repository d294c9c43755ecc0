/** Plan settings of the end-to-end runs: timelines for busy people, Leads for hot newcomers. */
export const e2eConfig = {
  motions: [
    { name: 'Busy visitors', conditions: { minSessions: 3 }, actions: ['postTimeline'] },
    {
      name: 'Hot newcomers',
      conditions: { purchaseIntent: ['very_high'] },
      actions: ['createLead'],
    },
  ],
  unreadable: ['Lead.Title'],
} as const;
