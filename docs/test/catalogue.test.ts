import { readFileSync } from 'node:fs';
import { fieldCatalogue, standardFields } from '@service/crm-sync';
import { describe, expect, it } from 'vitest';
import {
  cataloguePage,
  renderCatalogueTable,
  replaceCatalogueTable,
  TABLE_END,
  TABLE_START,
} from '../scripts/catalogue.ts';

const page = readFileSync(cataloguePage, 'utf8');

describe('docs/crm-sync/catalogue.md', () => {
  it('shows the table generated from the catalogue (run `pnpm docs:catalogue` when this fails)', () => {
    const table = renderCatalogueTable(fieldCatalogue, standardFields);
    expect(replaceCatalogueTable(page, table)).toBe(page);
    for (const field of fieldCatalogue) expect(table).toContain(`\`${field.apiName}\``);
  });

  it('notices a stale table and a page without its markers', () => {
    const stale = page.replace('`ServiceSessions__c`', '`ServiceSession__c`');
    expect(
      replaceCatalogueTable(stale, renderCatalogueTable(fieldCatalogue, standardFields)),
    ).not.toBe(stale);
    expect(() => replaceCatalogueTable(page.replace(TABLE_START, ''), '')).toThrow(TABLE_END);
  });
});
