import { lookupHandler } from '@/lib/lookup';

// The lookup handler takes a Fetch Request and returns a Response, as a Route Handler does.
// Next.js answers 405 for the methods this file does not export, and OPTIONS itself.
export const POST = async (request: Request): Promise<Response> => (await lookupHandler())(request);
