import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createKeyResolver, isWellFormedKey } from '../src/index.js';

const A = 'sk_live_aaaaaaaaaaaaaaaaaaaaaaaa';
const A2 = 'sk_live_bbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const B = 'sk_live_cccccccccccccccccccccccc';

describe('keys', () => {
  it('maps several keys per workspace (rotation) and nothing else', () => {
    const keys = createKeyResolver([
      { key: A, workspace: 'alpha' },
      { key: A2, workspace: 'alpha' },
      { key: B },
    ]);
    expect(keys.resolve(A)).toBe('alpha');
    expect(keys.resolve(A2)).toBe('alpha');
    expect(keys.resolve(B)).toBe('default');
    expect(keys.resolve(`${A}x`)).toBeNull();
    expect(keys.resolve(A.slice(0, -1))).toBeNull();
    expect(keys.resolve('')).toBeNull();
  });

  it.each([
    ['sk_live_ + 24 characters', 'sk_live_123456789012345678901234', true],
    ['sk_live_ + 23 characters', 'sk_live_12345678901234567890123', false],
    ['another prefix', 'sk_test_123456789012345678901234', false],
    ['whitespace inside', 'sk_live_1234567890 12345678901234', false],
    ['absurdly long', `sk_live_${'x'.repeat(600)}`, false],
  ])('%s -> well formed: %s', (_, key, expected) => {
    expect(isWellFormedKey(key)).toBe(expected);
  });

  it('refuses a malformed configured key without repeating it', () => {
    expect(() => createKeyResolver([{ key: A }, { key: 'sk_live_tooshort' }])).toThrow(
      /^key #2 is not a live secret key/,
    );
    let thrown: unknown;
    try {
      createKeyResolver([{ key: 'sk_live_tooshort' }]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect(String(thrown)).not.toContain('tooshort');
  });

  it('holds no plain key', () => {
    const keys = createKeyResolver([{ key: A }]);
    expect(inspect(keys, { showHidden: true, depth: Number.POSITIVE_INFINITY })).not.toContain(A);
    expect(JSON.stringify(keys)).not.toContain(A);
  });
});
