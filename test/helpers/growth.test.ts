// The linear-time check itself (test/helpers/growth.ts): quadratic work must fail it at every
// scale, and linear work whose cost steps up once between n and 4n (a memory threshold) must pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { growth, LINEAR_BOUND } from './growth.ts';

let sink = 0;

function spin(iterations: number): void {
  let x = sink;
  for (let i = 0; i < iterations; i++) x = (x * 31 + i) | 0;
  sink = x;
}

test('should report quadratic work as growing about 16 times for 4 times the input', () => {
  const ratio = growth((n) => { for (let i = 0; i < n; i++) spin(i); }, 500);
  assert.ok(ratio >= LINEAR_BOUND, `quadratic work measured as ${ratio.toFixed(1)}`);
});

test('should report linear work as linear', () => {
  const ratio = growth((n) => spin(n * 100), 4000);
  assert.ok(ratio < LINEAR_BOUND, `linear work measured as ${ratio.toFixed(1)}`);
});

test('should pass linear work whose cost per unit steps up once between n and 4n', () => {
  // Five times the cost per unit past 6000 units: 4000 -> 16000 looks like 20 times the work.
  const ratio = growth((n) => spin(n * (n > 6000 ? 500 : 100)), 4000);
  assert.ok(ratio < LINEAR_BOUND, `stepped linear work measured as ${ratio.toFixed(1)}`);
});
