import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isAllowedLinkUrl, safeImageUrl } from '../../../src/modules/rendering/urls.ts';

test('should allow links to http, https, mailto and relative URLs', () => {
  for (const href of ['https://example.com/a?b#c', 'http://example.com', 'mailto:a@b.example', '/decks/x', 'other', '../up', '#frag', '?q=1', '//cdn.example/x']) {
    assert.equal(isAllowedLinkUrl(href), true, href);
  }
});

test('should refuse links to any other scheme, however it is spelled', () => {
  for (const href of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'java\tscript:alert(1)', ' javascript:alert(1)', 'data:text/html,x',
    'vbscript:x', 'file:///etc/passwd', 'ftp://example.com', 'tel:123', 'blob:https://a/b', 'about:blank']) {
    assert.equal(isAllowedLinkUrl(href), false, href);
  }
});

test('should accept https image URLs and root-relative paths, serialised as the browser requests them', () => {
  assert.equal(safeImageUrl('https://img.example/a.png'), 'https://img.example/a.png');
  assert.equal(safeImageUrl('HTTPS://IMG.example/a b'), null);
  assert.equal(safeImageUrl('HTTPS://IMG.example/a.png'), 'https://img.example/a.png');
  assert.equal(safeImageUrl('https://img.example/a"b.png'), 'https://img.example/a%22b.png');
  assert.equal(safeImageUrl('/media/a.png?x=1#y'), '/media/a.png?x=1#y');
  assert.equal(safeImageUrl('/media/caf\u00e9.png'), '/media/caf%C3%A9.png');
});

test('should refuse every other image URL: http, other schemes, protocol-relative, backslash, controls, too long', () => {
  for (const url of ['http://img.example/a.png', 'javascript:alert(1)', 'data:image/png;base64,AAAA', 'vbscript:x', 'file:///x',
    '//evil.example/a.png', '/\\evil.example/a.png', '/\t/evil.example/a.png', '/a\nb', 'https:/evil.example', 'https:evil.example',
    'relative.png', './a.png', '', ' https://img.example/a.png', `https://img.example/${'a'.repeat(2048)}`]) {
    assert.equal(safeImageUrl(url), null, JSON.stringify(url));
  }
  assert.equal(safeImageUrl(null), null);
  assert.equal(safeImageUrl(undefined), null);
});
