import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LINK_REL, renderMarkdownSide } from '../../../src/modules/rendering/markdown-side.ts';
import { assertSafeHtml, elementsOf, textOf } from '../../helpers/rendered-html.ts';

const anchors = (html: string) => elementsOf(html).filter((el) => el.name === 'a');
const images = (html: string) => elementsOf(html).filter((el) => el.name === 'img');

test('should render GFM tables with alignment as classes, not style attributes', () => {
  const html = renderMarkdownSide('| Left | Right | Center |\n|:--|--:|:-:|\n| a | b | c |');
  assert.match(html, /<th class="align-left">Left<\/th>/);
  assert.match(html, /<td class="align-right">b<\/td>/);
  assert.match(html, /<td class="align-center">c<\/td>/);
  assert.doesNotMatch(html, /style=/);
});

test('should render strikethrough', () => {
  assert.equal(renderMarkdownSide('~~gone~~ kept'), '<p><s>gone</s> kept</p>\n');
});

test('should render task lists as disabled checkboxes labelled by the item text', () => {
  const html = renderMarkdownSide('- [ ] open\n- [x] done');
  assert.match(html, /<ul class="contains-task-list">/);
  assert.match(html, /<li class="task-list-item"><label><input class="task-list-item-checkbox" disabled="" type="checkbox"> open<\/label><\/li>/);
  assert.match(html, /<input class="task-list-item-checkbox" checked="" disabled="" type="checkbox"> done/);
});

test('should autolink http(s) URLs, www. hosts and emails, but not bare file-like names', () => {
  const html = renderMarkdownSide('https://example.com/a www.example.org/b a@b.example main.py example.com');
  assert.deepEqual(anchors(html).map((a) => a.attributes.href), ['https://example.com/a', 'http://www.example.org/b', 'mailto:a@b.example']);
  assert.match(textOf(html), /main\.py example\.com$/m);
});

test(`should give every link rel="${LINK_REL}"`, () => {
  const html = renderMarkdownSide('[a](https://a.example) <https://b.example> https://c.example [d](/rel) [e](mailto:e@x.example)');
  assert.equal(anchors(html).length, 5);
  for (const a of anchors(html)) assert.equal(a.attributes.rel, LINK_REL);
});

test('should link only to http(s), mailto and relative URLs; other links stay literal text', () => {
  const html = renderMarkdownSide('[ok](https://a.example) [rel](../x) [frag](#y) [js](javascript:alert(1)) [data](data:text/html,x) [vb](vbscript:x) [file](file:///etc/passwd) [ftp](ftp://a.example)');
  assert.deepEqual(anchors(html).map((a) => a.attributes.href), ['https://a.example', '../x', '#y']);
  assert.match(textOf(html), /\[js\]\(javascript:alert\(1\)\)/);
  assertSafeHtml(html, 'links');
});

test('should refuse a reference definition to a javascript: URL', () => {
  const html = renderMarkdownSide('[x][evil]\n\n[evil]: javascript:alert(1)');
  assert.equal(anchors(html).length, 0);
});

test('should render images from https or root-relative URLs with alt text, lazy, no referrer', () => {
  const html = renderMarkdownSide('![A cell](https://img.example/cell.png "Cell") ![Root](/media/r.png)');
  assert.deepEqual(images(html).map((img) => img.attributes), [
    { src: 'https://img.example/cell.png', alt: 'A cell', title: 'Cell', loading: 'lazy', decoding: 'async', referrerpolicy: 'no-referrer' },
    { src: '/media/r.png', alt: 'Root', loading: 'lazy', decoding: 'async', referrerpolicy: 'no-referrer' },
  ]);
});

test('should show only the alt text of an image from http, a relative path, another host by // or another scheme', () => {
  const html = renderMarkdownSide('![one](http://img.example/a.png) ![two](a.png) ![three](//evil.example/a.png) ![five](javascript:alert(1)) ![six](data:image/png;base64,AA)');
  assert.equal(images(html).length, 0);
  assert.match(textOf(html), /one two three/);
  assertSafeHtml(html, 'images');
});

test('should keep a markdown image written /\\host on this site: markdown-it percent-encodes the backslash', () => {
  const html = renderMarkdownSide('![four](/\\evil.example/a.png)');
  assert.equal(images(html)[0].attributes.src, '/%5Cevil.example/a.png');
  assert.equal(new URL(images(html)[0].attributes.src, 'https://flashdeck.example/decks/x').host, 'flashdeck.example');
});

test('should escape an image alt text that tries to break out of its attribute', () => {
  const html = renderMarkdownSide('![" onerror="alert(1)](https://img.example/a.png)');
  assert.deepEqual(images(html)[0].attributes.alt, '" onerror="alert(1)');
  assertSafeHtml(html, 'alt breakout');
});

test('should show raw HTML as text', () => {
  assert.equal(renderMarkdownSide('<b>bold</b> <script>alert(1)</script>'), '<p>&lt;b&gt;bold&lt;/b&gt; &lt;script&gt;alert(1)&lt;/script&gt;</p>\n');
  assert.equal(renderMarkdownSide('<div>\nblock\n</div>'), '<p>&lt;div&gt;<br>\nblock<br>\n&lt;/div&gt;</p>\n');
});

test('should keep single line breaks', () => {
  assert.equal(renderMarkdownSide('line 1\nline 2'), '<p>line 1<br>\nline 2</p>\n');
});

test('should render $…$ and $$…$$ math through KaTeX with the latex settings', () => {
  const html = renderMarkdownSide('Inline $x^2$ and display:\n\n$$\n\\frac{a}{b}\n$$\n\nand $$y$$ in text.');
  assert.match(html, /<p>Inline <span class="katex">/);
  assert.match(html, /<div class="math-display"><span class="katex-display">/);
  assert.match(html, /and <span class="math-display"><span class="katex-display">/);
  const untrusted = renderMarkdownSide('$\\href{javascript:alert(1)}{x}$ $$\\htmlClass{answer-label}{y}$$');
  assert.equal(anchors(untrusted).length, 0);
  assert.match(untrusted, /class="math-error/);
  assertSafeHtml(untrusted, 'math');
});

test('should escape the info string of a fenced code block in its class', () => {
  const html = renderMarkdownSide('```js"><script>\ncode\n```');
  assert.equal(elementsOf(html).find((el) => el.name === 'code')?.attributes.class, 'language-js"><script>');
  assertSafeHtml(html, 'fence');
});

test('should stop parsing nesting at the nesting limit', () => {
  const html = renderMarkdownSide('>'.repeat(5000) + ' deep');
  assert.ok(elementsOf(html).filter((el) => el.name === 'blockquote').length <= 20);
});

test('should render an empty side as nothing', () => {
  assert.equal(renderMarkdownSide(''), '');
});
