import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderSideMedia } from '../../../src/modules/rendering/media.ts';

test('should render a side image with its alt text, lazy-loaded and without a referrer', () => {
  assert.equal(renderSideMedia({ imageUrl: 'https://img.example/cell.png', imageAlt: 'A cell' }),
    '<p class="card-media"><img src="https://img.example/cell.png" alt="A cell" loading="lazy" decoding="async" referrerpolicy="no-referrer"></p>');
  assert.equal(renderSideMedia({ imageUrl: '/media/cell.png' }),
    '<p class="card-media"><img src="/media/cell.png" alt="" loading="lazy" decoding="async" referrerpolicy="no-referrer"></p>');
});

test('should escape alt text so it cannot break out of its attribute', () => {
  const html = renderSideMedia({ imageUrl: 'https://img.example/a.png', imageAlt: '"><script>alert(1)</script>' });
  assert.match(html, / alt="&quot;&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;" /);
});

test('should show the alt text instead of an image whose URL is not https or root-relative', () => {
  for (const imageUrl of ['http://img.example/a.png', 'javascript:alert(1)', 'data:image/png;base64,AA', '//evil.example/a.png', '/\\evil.example/a.png']) {
    assert.equal(renderSideMedia({ imageUrl, imageAlt: 'Diagram <1>' }), '<p class="card-media card-media-unavailable">Diagram &lt;1&gt;</p>', imageUrl);
  }
});

test('should render nothing for no media, no URL and no alt, or a refused URL without alt', () => {
  assert.equal(renderSideMedia(undefined), '');
  assert.equal(renderSideMedia(null), '');
  assert.equal(renderSideMedia({}), '');
  assert.equal(renderSideMedia({ imageUrl: 'javascript:alert(1)' }), '');
});
