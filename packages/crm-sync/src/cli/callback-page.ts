/**
 * The small HTML page the login's loopback callback shows in the browser: what happened, and
 * that the rest happens in the terminal.
 */

/** How a login ended, as the browser's tab should say it. */
export type LoginOutcome =
  | { readonly kind: 'approved'; readonly org: string; readonly user: string }
  | { readonly kind: 'refused' }
  | { readonly kind: 'state-mismatch' }
  /** A callback after the one whose code the login took (or after the login ended). */
  | { readonly kind: 'already-answered' }
  /** The one-time login link opened a second time. */
  | { readonly kind: 'link-reused' }
  | { readonly kind: 'error'; readonly message: string };

export interface CallbackPage {
  readonly status: number;
  readonly html: string;
}

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text from Salesforce or the user goes into the page as text, never as markup. */
const text = (value: string) => value.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);

function describe(outcome: LoginOutcome): { title: string; message: string; status: number } {
  switch (outcome.kind) {
    case 'approved':
      return {
        status: 200,
        title: 'Connected to Salesforce',
        message: `service-crm is connected to org ${outcome.org} as ${outcome.user}.`,
      };
    case 'refused':
      return {
        status: 403,
        title: 'Access refused',
        message:
          'You chose Deny, so service-crm is not connected and nothing was saved. Run service-crm login again and choose Allow to connect.',
      };
    case 'state-mismatch':
      return {
        status: 400,
        title: 'Login not completed',
        message:
          'This answer does not belong to the login service-crm started (its state differs), so it was ignored. service-crm is still waiting for the answer to its own login.',
      };
    case 'already-answered':
      return {
        status: 409,
        title: 'Login already answered',
        message:
          'service-crm took the answer to its login already, so this one was ignored and changed nothing.',
      };
    case 'link-reused':
      return {
        status: 410,
        title: 'Login link already used',
        message:
          'This one-time link was opened before, perhaps by another program, so service-crm stopped the login and saved nothing. Run service-crm login again.',
      };
    case 'error':
      return { status: 400, title: 'Login failed', message: outcome.message };
  }
}

export function callbackPage(outcome: LoginOutcome): CallbackPage {
  const { title, message, status } = describe(outcome);
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${text(title)} - service-crm</title>` +
    '<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem}</style>' +
    `</head><body><h1>${text(title)}</h1><p>${text(message)}</p>` +
    '<p>You can close this tab and return to the terminal.</p></body></html>';
  return { status, html };
}
