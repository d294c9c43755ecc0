// REST resources the emulator serves for @salesforce/core's set-up of an sf CLI login: the list
// of API versions (no authentication), and one record by id with the fields the user can read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../src/server.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({ validateSchema: false });
});
afterAll(() => emulator.close());

describe('emulator REST resources', () => {
  it('lists the API versions without a session', async () => {
    const versions = await fetch(`${emulator.url}/services/data`);
    expect(versions.status).toBe(200);
    expect(await versions.json()).toContainEqual(
      expect.objectContaining({ version: '59.0', url: '/services/data/v59.0' }),
    );
  });

  it('returns a record by id without the fields field-level security hides, 404 for none', async () => {
    const { accessToken } = emulator.issueTokens();
    const get = (path: string) =>
      fetch(`${emulator.url}/services/data/v59.0/sobjects/${path}`, {
        headers: { authorization: `Bearer ${accessToken}` },
      });
    expect(await (await get(`User/${emulator.org.userId}`)).json()).toHaveProperty('Email');
    emulator.org.hidden.add('User.Email');
    const user = await get(`User/${emulator.org.userId}`);
    expect(user.status).toBe(200);
    const body = await user.json();
    expect(body).toMatchObject({
      attributes: {
        type: 'User',
        url: `/services/data/v59.0/sobjects/User/${emulator.org.userId}`,
      },
      Id: emulator.org.userId,
      Username: emulator.username,
    });
    expect(body).not.toHaveProperty('Email');
    expect((await get('User/005000000000000AAA')).status).toBe(404);
    expect((await fetch(`${emulator.url}/services/data/v59.0/sobjects/User/x`)).status).toBe(401);
  });
});
