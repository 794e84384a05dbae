import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../../../src/domain/shared/bounded-cache.js';

describe('BoundedCache', () => {
  it('keeps at most maxBytes, dropping the least recently used first', () => {
    const cache = new BoundedCache<string>(10, (v) => v.length);
    cache.set('a', 'aaaa');
    cache.set('b', 'bbbb');
    expect(cache.get('a')).toBe('aaaa'); // a is now the most recently used
    cache.set('c', 'cccc'); // 12 bytes: b goes
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe('aaaa');
    expect(cache.get('c')).toBe('cccc');
    expect(cache.usedBytes).toBe(8);
  });

  it('replaces a key without counting it twice, and never keeps a value larger than the whole cache', () => {
    const cache = new BoundedCache<string>(10, (v) => v.length);
    cache.set('a', 'aaaa');
    cache.set('a', 'aaaaaa');
    expect(cache.usedBytes).toBe(6);
    cache.set('big', 'x'.repeat(11));
    expect(cache.get('big')).toBeUndefined();
    expect(cache.get('a')).toBe('aaaaaa');
    cache.delete('a');
    expect([cache.size, cache.usedBytes]).toEqual([0, 0]);
  });
});
