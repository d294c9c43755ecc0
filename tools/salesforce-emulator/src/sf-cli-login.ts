// Writes an `sf` CLI login the way the sf CLI does, with @salesforce/core itself, into the HOME
// of this process: a refresh-token grant against SF_TEST_LOGIN_URL, saved and given an alias.
// Run as its own process (`SF_CLI_LOGIN`) with a temporary HOME: @salesforce/core keeps
// its state per process.
import { AuthInfo } from '@salesforce/core';

const given = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const auth = await AuthInfo.create({
  oauth2Options: {
    loginUrl: given('SF_TEST_LOGIN_URL'),
    clientId: given('SF_TEST_CLIENT_ID'),
    clientSecret: given('SF_TEST_CLIENT_SECRET'),
    refreshToken: given('SF_TEST_REFRESH_TOKEN'),
  },
});
await auth.save();
await auth.setAlias(process.env.SF_TEST_ALIAS ?? 'acme');
console.log(auth.getUsername());
