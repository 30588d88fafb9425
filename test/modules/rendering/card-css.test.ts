import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const css = readFileSync(new URL('../../../src/surfaces/web/assets/card.css', import.meta.url), 'utf8');

function colour(name: string): string {
  const match = new RegExp(`--${name}:\\s*(#[0-9a-fA-F]{6});`).exec(css);
  assert.ok(match, `--${name} is defined`);
  return match[1];
}

// WCAG 2 relative luminance and contrast ratio.
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrastOnWhite(hex: string): number {
  return 1.05 / (luminance(hex) + 0.05);
}

for (const name of ['marker-true', 'marker-false', 'marker-warning', 'marker-therefore', 'card-text', 'card-muted', 'math-error']) {
  test(`should give --${name} at least 4.5:1 contrast on white (WCAG AA)`, () => {
    const ratio = contrastOnWhite(colour(name));
    assert.ok(ratio >= 4.5, `${colour(name)}: ${ratio.toFixed(2)}:1`);
  });
}

test('should style every class the renderer writes', () => {
  for (const cls of ['card-chrome', 'answer-label', 'marker-true', 'marker-false', 'marker-warning', 'marker-therefore', 'contains-task-list',
    'task-list-item-checkbox', 'align-left', 'align-center', 'align-right', 'math-display', 'math-error', 'card-media', 'card-media-unavailable']) {
    assert.match(css, new RegExp(`\\.${cls}\\b`), cls);
  }
  assert.match(css, /\btable\b/);
  assert.match(css, /\bcode\b/);
});

test('should load nothing from elsewhere', () => {
  assert.doesNotMatch(css, /@import|url\(/);
});
