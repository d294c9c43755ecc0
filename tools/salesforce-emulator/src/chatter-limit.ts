// Chatter's hourly rate limit: Chatter REST API resources (a subset of Connect REST API) are
// limited per user, per application, per hour; past it every such request is answered 503
// Service Unavailable until the hour is over. The documentation gives no figure ("limits can
// change without notice"); the emulator counts the feed posts of its one user in an hour that
// starts with the first post, on the org's clock (`org.advance` moves it).
// https://developer.salesforce.com/docs/atlas.en-us.chatterapi.meta/chatterapi/intro_rate_limits.htm
// https://developer.salesforce.com/docs/platform/salesforce-app-limits-cheatsheet/guide/salesforce-app-limits-chatter-rest.html

const HOUR_MS = 3_600_000;

/**
 * The answer past the limit. The pages name the status only; the body takes the REST API's error
 * shape (`errorCode`, `message`), the status's own name as its code, so a client must go by the
 * status.
 * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/errorcodes.htm
 */
export const CHATTER_LIMIT_ANSWER = [
  {
    errorCode: 'SERVICE_UNAVAILABLE',
    message: 'Too many requests in an hour: the Chatter rate limit of this user and application.',
  },
];

/** The posts of the current hour, against `postsPerHour`. */
export class ChatterHourlyLimit {
  #hourStart = Number.NEGATIVE_INFINITY;
  #posts = 0;

  constructor(
    readonly postsPerHour: number,
    private readonly clock: () => number,
  ) {}

  /** Counts one post; false when the hour's posts are used up (the post is refused). */
  admit(): boolean {
    const now = this.clock();
    if (now - this.#hourStart >= HOUR_MS) {
      this.#hourStart = now;
      this.#posts = 0;
    }
    if (this.#posts >= this.postsPerHour) return false;
    this.#posts += 1;
    return true;
  }
}
