import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ByteBoundedLru } from '../src/lru.ts';

const lru = (max: number) => new ByteBoundedLru<string>(max, (value) => value.length);

test('should keep values within the byte bound, evicting the least recently used first', () => {
  const cache = lru(10);
  cache.set('a', 'aaaa');
  cache.set('b', 'bbbb');
  assert.equal(cache.get('a'), 'aaaa'); // a is now the most recently used
  cache.set('c', 'cccc');
  assert.equal(cache.peek('b'), undefined);
  assert.equal(cache.peek('a'), 'aaaa');
  assert.equal(cache.peek('c'), 'cccc');
  assert.equal(cache.bytes, 8);
  assert.equal(cache.size, 2);
});

test('should not let peek refresh an entry', () => {
  const cache = lru(8);
  cache.set('a', 'aaaa');
  cache.set('b', 'bbbb');
  cache.peek('a');
  cache.set('c', 'cccc');
  assert.equal(cache.peek('a'), undefined);
});

test('should replace a value under the same key and count only the new one', () => {
  const cache = lru(10);
  cache.set('a', 'aaaaaa');
  cache.set('a', 'aa');
  assert.equal(cache.bytes, 2);
  assert.equal(cache.get('a'), 'aa');
});

test('should refuse a value larger than the whole bound', () => {
  const cache = lru(4);
  cache.set('a', 'aa');
  assert.equal(cache.set('big', 'bbbbb'), false);
  assert.equal(cache.peek('big'), undefined);
  assert.equal(cache.peek('a'), 'aa', 'nothing is evicted for a value that is not kept');
});

test('should delete and account for it', () => {
  const cache = lru(10);
  cache.set('a', 'aaa');
  cache.delete('a');
  cache.delete('missing');
  assert.equal(cache.bytes, 0);
  assert.equal(cache.size, 0);
});

test('should refuse a bound that is not positive', () => {
  assert.throws(() => lru(0), RangeError);
});
