// CSV as Bulk API 2.0 reads and writes it: comma-delimited, LF line endings (the job
// defaults), a header row of field names, values in double quotes when they hold a comma, a
// quote or a line break, quotes doubled inside.
// https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/datafiles_prepare_csv.htm

/** Rows of a CSV text as objects keyed by the header's names (all values are strings). */
export function readCsv(text: string): { header: string[]; rows: Record<string, string>[] } {
  const cells: string[][] = [[]];
  let field = '';
  let quoted = false;
  let row = cells[0] as string[];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || (c === '\r' && text[i + 1] === '\n')) {
      if (c === '\r') i++;
      row.push(field);
      field = '';
      row = [];
      cells.push(row);
    } else field += c;
  }
  if (field !== '' || row.length > 0) row.push(field);
  const [header = [], ...body] = cells.filter((r) => r.length > 0);
  return {
    header,
    rows: body.map((r) => Object.fromEntries(header.map((name, i) => [name, r[i] ?? '']))),
  };
}

/**
 * Writes rows the way Salesforce's result files look: every value in double quotes (as in the
 * documentation's examples), a header first.
 * https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/query_get_job_results.htm
 */
export function writeCsv(
  header: readonly string[],
  rows: readonly Record<string, string>[],
): string {
  const line = (values: readonly string[]) =>
    values.map((v) => `"${v.replaceAll('"', '""')}"`).join(',');
  return [line(header), ...rows.map((r) => line(header.map((h) => r[h] ?? '')))]
    .map((l) => `${l}\n`)
    .join('');
}
