/**
 * The message segments of a feed post: each line of the text is a paragraph (`MarkupBegin` and
 * `MarkupEnd` of `markupType` Paragraph around its Text segment), as a rich-text post is made;
 * a line break inside one Text segment is not how Chatter breaks lines.
 * https://developer.salesforce.com/docs/atlas.en-us.chatterapi.meta/chatterapi/quickreference_post_feed_element_rich_text.htm
 * https://developer.salesforce.com/docs/atlas.en-us.chatterapi.meta/chatterapi/connect_requests_message_body_input.htm
 */

/** One Message Segment Input. */
export type MessageSegmentInput =
  | { readonly type: 'Text'; readonly text: string }
  | { readonly type: 'MarkupBegin' | 'MarkupEnd'; readonly markupType: 'Paragraph' };

/**
 * `text` as paragraph segments, one per line. An empty line is a paragraph of one space: a
 * paragraph needs text to show, and the blank line between two parts is kept.
 */
export function paragraphSegments(text: string): MessageSegmentInput[] {
  return text.split(/\r?\n/).flatMap((line): MessageSegmentInput[] => [
    { type: 'MarkupBegin', markupType: 'Paragraph' },
    { type: 'Text', text: line === '' ? ' ' : line },
    { type: 'MarkupEnd', markupType: 'Paragraph' },
  ]);
}
