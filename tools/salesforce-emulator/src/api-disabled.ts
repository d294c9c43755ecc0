// An org whose API is off: every REST API request is refused with 403 and the reason's code.
// `org`: the org's edition has no API access (API_DISABLED_FOR_ORG); `user`: the user lacks the
// "API Enabled" permission (API_CURRENTLY_DISABLED, "API is disabled for this User").
// https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/errorcodes.htm
// https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_concepts_core_data_objects.htm#exceptioncode

/** Whose API access is off. */
export type ApiDisabled = 'org' | 'user';

export const API_DISABLED_ANSWERS: Readonly<
  Record<ApiDisabled, readonly { errorCode: string; message: string }[]>
> = {
  org: [
    {
      errorCode: 'API_DISABLED_FOR_ORG',
      message: 'API is not enabled for this Organization or Partner',
    },
  ],
  user: [{ errorCode: 'API_CURRENTLY_DISABLED', message: 'API is disabled for this User' }],
};
