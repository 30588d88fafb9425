import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HTML_ALLOWED_TAGS, HTML_NESTING_LIMIT, renderHtmlSide } from '../../../src/modules/rendering/html-side.ts';
import { elementsOf } from '../../helpers/rendered-html.ts';

test('should keep every tag of the allowlist', () => {
  for (const tag of HTML_ALLOWED_TAGS) {
    const source = tag === 'br' || tag === 'hr' ? `a<${tag}>b` : `<${tag}>x</${tag}>`;
    assert.equal(renderHtmlSide(source), tag === 'br' || tag === 'hr' ? `a<${tag} />b` : source, tag);
  }
});

test('should allow exactly p, h1 to h6, br, hr, sub, sup, small, mark, kbd, abbr and span', () => {
  assert.deepEqual([...HTML_ALLOWED_TAGS].sort(),
    ['abbr', 'br', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'kbd', 'mark', 'p', 'small', 'span', 'sub', 'sup']);
});

test('should keep title on abbr, the one attribute that survives', () => {
  assert.equal(renderHtmlSide('<abbr title="Adenosine triphosphate">ATP</abbr>'), '<abbr title="Adenosine triphosphate">ATP</abbr>');
});

// Elements the spec strips by name, and others outside the allowlist: the tag goes, and for
// elements whose content is code or markup, the content too.
const strippedElements: ReadonlyArray<readonly [string, string, string]> = [
  ['script', '<p>a<script>alert(1)</script>b</p>', '<p>ab</p>'],
  ['iframe', '<p>a<iframe src="https://evil.example">inner</iframe>b</p>', '<p>ab</p>'],
  ['style', '<p>a<style>p{color:red}</style>b</p>', '<p>ab</p>'],
  ['form', '<form action="https://evil.example"><p>in form</p></form>', '<p>in form</p>'],
  ['object', '<p>a<object data="x.swf">fallback</object>b</p>', '<p>ab</p>'],
  ['embed', '<p>a<embed src="x.swf">b</p>', '<p>ab</p>'],
  ['a (anchor)', '<p><a href="https://example.com">link text</a></p>', '<p>link text</p>'],
  ['img', '<p>a<img src="https://img.example/x.png" alt="x">b</p>', '<p>ab</p>'],
  ['svg', '<p><svg><circle r="5"></circle></svg>x</p>', '<p>x</p>'],
  ['math', '<p><math><mi>x</mi></math></p>', '<p>x</p>'],
  ['input', '<p>a<input value="v">b</p>', '<p>ab</p>'],
  ['button', '<p><button>press</button></p>', '<p>press</p>'],
  ['textarea', '<p>a<textarea><script>x</script></textarea>b</p>', '<p>ab</p>'],
  ['select/option', '<p>a<select><option>o</option></select>b</p>', '<p>ab</p>'],
  ['template', '<p>a<template><p>t</p></template>b</p>', '<p>ab</p>'],
  ['noscript', '<p>a<noscript>n</noscript>b</p>', '<p>ab</p>'],
  ['link', '<link rel="stylesheet" href="https://evil.example/x.css"><p>x</p>', '<p>x</p>'],
  ['meta', '<meta http-equiv="refresh" content="0;url=https://evil.example"><p>x</p>', '<p>x</p>'],
  ['base', '<base href="https://evil.example/"><p>x</p>', '<p>x</p>'],
  ['div', '<div>block</div>', 'block'],
  ['table', '<table><tr><td>cell</td></tr></table>', 'cell'],
  ['b, i, u, em, strong', '<b>b</b><i>i</i><u>u</u><em>e</em><strong>s</strong>', 'biues'],
  ['video and audio', '<video src="x.mp4">v</video><audio src="x.mp3">a</audio>', 'va'],
  ['details and summary', '<details open><summary>s</summary>d</details>', 'sd'],
  ['ul, ol, li', '<ul><li>one</li></ul>', 'one'],
  ['pre and code', '<pre><code>c</code></pre>', 'c'],
  ['html, head, body, title', '<html><head><title>t</title></head><body><p>x</p></body></html>', '<p>x</p>'],
];

for (const [name, source, expected] of strippedElements) {
  test(`should strip ${name}`, () => {
    assert.equal(renderHtmlSide(source), expected);
  });
}

// Attributes: none survives on an allowed tag except abbr's title.
const strippedAttributes: ReadonlyArray<readonly [string, string]> = [
  ['style', '<p style="color:red;background:url(https://evil.example/x)">x</p>'],
  ['onclick', '<p onclick="alert(1)">x</p>'],
  ['onmouseover', '<span onmouseover="alert(1)">x</span>'],
  ['onfocus with autofocus and tabindex', '<h1 onfocus="alert(1)" autofocus tabindex="0">x</h1>'],
  ['onerror', '<small onerror="alert(1)">x</small>'],
  ['class', '<span class="answer-label">x</span>'],
  ['id', '<h2 id="main">x</h2>'],
  ['data-*', '<mark data-x="1">x</mark>'],
  ['lang and dir', '<p lang="ar" dir="rtl">x</p>'],
  ['hidden', '<p hidden>x</p>'],
  ['aria-*', '<span aria-label="fake">x</span>'],
  ['role', '<span role="button">x</span>'],
  ['title outside abbr', '<span title="t">x</span>'],
  ['href on an allowed tag', '<span href="javascript:alert(1)">x</span>'],
  ['src on an allowed tag', '<p src="javascript:alert(1)">x</p>'],
  ['contenteditable', '<p contenteditable="true">x</p>'],
  ['onclick on abbr next to its title', '<abbr title="t" onclick="alert(1)">x</abbr>'],
];

for (const [name, source] of strippedAttributes) {
  test(`should strip the ${name} attribute`, () => {
    const [element] = elementsOf(renderHtmlSide(source));
    const expected = element.name === 'abbr' ? { title: 't' } : {};
    assert.deepEqual(element.attributes, expected);
  });
}

test('should re-escape text, so entities and stray angle brackets stay text', () => {
  assert.equal(renderHtmlSide('<p>1 &lt; 2 &amp;&amp; 3 > 2 "q"</p>'), '<p>1 &lt; 2 &amp;&amp; 3 &gt; 2 "q"</p>');
  assert.equal(renderHtmlSide('<<script>script>alert(1)<</script>/script>'), '&lt;/script&gt;');
});

test('should escape quotes in the surviving title attribute', () => {
  assert.equal(renderHtmlSide('<abbr title=\'a"b\'>x</abbr>'), '<abbr title="a&quot;b">x</abbr>');
});

test(`should flatten allowed tags nested deeper than ${HTML_NESTING_LIMIT}`, () => {
  const html = renderHtmlSide('<span>'.repeat(500) + 'deep' + '</span>'.repeat(500));
  assert.equal(elementsOf(html).length, HTML_NESTING_LIMIT);
  assert.match(html, /deep/);
});

test('should close unclosed tags and render an empty side as nothing', () => {
  assert.equal(renderHtmlSide('<p><mark>open'), '<p><mark>open</mark></p>');
  assert.equal(renderHtmlSide(''), '');
});
