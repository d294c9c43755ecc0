// The body of a feed post, from the message segments of its Feed Item Input: text segments, and
// rich text as `MarkupBegin`/`MarkupEnd` segments (`markupType` `Paragraph` for a paragraph).
// A post with markup is rich text: its FeedItem's Body holds the HTML (`<p>...</p>`) and
// IsRichText is true; a plain post's Body is its text.
// https://developer.salesforce.com/docs/atlas.en-us.chatterapi.meta/chatterapi/quickreference_post_feed_element_rich_text.htm
// https://developer.salesforce.com/docs/atlas.en-us.chatterapi.meta/chatterapi/connect_requests_message_body_input.htm
// https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/sforce_api_objects_feeditem.htm

/** One message segment as posted. */
export interface MessageSegment {
  readonly type?: string;
  readonly text?: string;
  readonly markupType?: string;
}

const TAGS: Readonly<Record<string, string>> = { Paragraph: 'p', Bold: 'b', Italic: 'i' };

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"]/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c,
  );

/** The FeedItem Body and IsRichText of a post made of `segments`. */
export function feedItemBody(segments: readonly MessageSegment[]): {
  body: string;
  isRichText: boolean;
} {
  const rich = segments.some((s) => s.type === 'MarkupBegin' || s.type === 'MarkupEnd');
  if (!rich) return { body: segments.map((s) => s.text ?? '').join(''), isRichText: false };
  const html = segments.map((s) => {
    const tag = TAGS[s.markupType ?? ''] ?? 'span';
    if (s.type === 'MarkupBegin') return `<${tag}>`;
    if (s.type === 'MarkupEnd') return `</${tag}>`;
    return escapeHtml(s.text ?? '');
  });
  return { body: html.join(''), isRichText: true };
}

/** The plain text of a post, as a feed's `body.text` gives it: a paragraph per line. */
export function feedText(segments: readonly MessageSegment[]): string {
  let text = '';
  for (const s of segments) {
    if (s.type === 'MarkupBegin' && s.markupType === 'Paragraph' && text !== '') text += '\n';
    else if (s.type !== 'MarkupBegin' && s.type !== 'MarkupEnd') text += s.text ?? '';
  }
  return text;
}
