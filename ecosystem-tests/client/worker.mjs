// A Cloudflare Worker (workerd, without nodejs_compat): the servers come as the request's JSON
// body, the results go back as the answer.
import * as lib from '@service/lookup-client';
import { runChecks } from './check.mjs';

export default {
  async fetch(request) {
    return Response.json(await runChecks(lib, await request.json()));
  },
};
