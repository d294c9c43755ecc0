/**
 * Job data for Bulk API 2.0 ingest jobs: CSV with a header row of field names, comma
 * delimiter, LF line endings. An empty cell leaves a field as it is on update, so a record of
 * the job that does not write a field gets an empty cell there, and a value that clears a
 * field (null, or an empty text) is sent as `#N/A`.
 */
import type { FieldValue } from '../../model/objects.js';

/** The text of one cell. */
export function csvCell(value: FieldValue | undefined): string {
  if (value === undefined) return '';
  if (value === null || value === '') return '#N/A';
  return String(value);
}

const quote = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);

/** A CSV document: `columns` as the header, one line per row. */
export function toCsv(
  columns: readonly string[],
  rows: readonly Readonly<Record<string, FieldValue | undefined>>[],
): string {
  let csv = `${columns.map(quote).join(',')}\n`;
  for (const row of rows) csv += `${columns.map((c) => quote(csvCell(row[c]))).join(',')}\n`;
  return csv;
}

/**
 * What identifies a row in a job's result files, which echo the uploaded values in any order:
 * its non-empty cells, by column.
 */
export function rowSignature(cells: Readonly<Record<string, string>>): string {
  return JSON.stringify(
    Object.entries(cells)
      .filter(([column, text]) => text !== '' && !column.startsWith('sf__'))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}
