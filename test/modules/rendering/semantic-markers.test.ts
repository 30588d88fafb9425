import { test } from 'node:test';
import assert from 'node:assert/strict';
import MarkdownIt from 'markdown-it';
import { applySemanticListMarkers, SEMANTIC_MARKERS } from '../../../src/modules/rendering/semantic-markers.ts';
import { renderMarkdownSide } from '../../../src/modules/rendering/markdown-side.ts';

test('should recolour a list item starting with a check mark (U+2713) as true and remove the marker', () => {
  assert.equal(renderMarkdownSide('- \u2713 Mitochondria make ATP'), '<ul>\n<li class="marker-true">Mitochondria make ATP</li>\n</ul>\n');
});

test('should recolour a list item starting with a cross (U+2717) as false and remove the marker', () => {
  assert.equal(renderMarkdownSide('- \u2717 Ribosomes make ATP'), '<ul>\n<li class="marker-false">Ribosomes make ATP</li>\n</ul>\n');
});

test('should recolour a list item starting with "! " as a warning and remove the marker', () => {
  assert.equal(renderMarkdownSide('- ! Not in prokaryotes'), '<ul>\n<li class="marker-warning">Not in prokaryotes</li>\n</ul>\n');
});

test('should recolour a list item starting with an arrow (U+2192) as therefore and remove the marker', () => {
  assert.equal(renderMarkdownSide('- \u2192 So cells need oxygen'), '<ul>\n<li class="marker-therefore">So cells need oxygen</li>\n</ul>\n');
});

test('should mark items of ordered lists, loose lists and items with inline markup', () => {
  assert.equal(renderMarkdownSide('1. \u2713 **bold** start\n2. \u2192 https://a.example'),
    '<ol>\n<li class="marker-true"><strong>bold</strong> start</li>\n'
    + '<li class="marker-therefore"><a href="https://a.example" rel="noopener noreferrer nofollow ugc">https://a.example</a></li>\n</ol>\n');
  assert.match(renderMarkdownSide('- \u2717 one\n\n- two'), /<li class="marker-false">\n<p>one<\/p>/);
});

test('should leave items without a marker and one space alone', () => {
  const html = renderMarkdownSide('- \u2713no space\n- plain \u2713 later\n- !important\n- \\! escaped\n- &#x2713; entity\n- \u2714 heavy check');
  assert.doesNotMatch(html, /marker-/);
  assert.match(html, /<li>\u2713no space<\/li>/);
  assert.match(html, /<li>! escaped<\/li>/);
});

test('should only read markers at the start of list items, not paragraphs', () => {
  assert.equal(renderMarkdownSide('\u2713 not a list'), '<p>\u2713 not a list</p>\n');
});

test('should work as a token transform on any markdown-it token stream', () => {
  const md = new MarkdownIt();
  const tokens = md.parse('- ! careful\n- fine', {});
  applySemanticListMarkers(tokens);
  assert.equal(md.renderer.render(tokens, md.options, {}), '<ul>\n<li class="marker-warning">careful</li>\n<li>fine</li>\n</ul>\n');
});

test('should name the four markers of the spec', () => {
  assert.deepEqual(SEMANTIC_MARKERS.map((m) => [m.prefix, m.name]), [['\u2713 ', 'true'], ['\u2717 ', 'false'], ['! ', 'warning'], ['\u2192 ', 'therefore']]);
});
