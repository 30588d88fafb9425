import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderTextSide } from '../../../src/modules/rendering/text-side.ts';

test('should escape text sides and keep every line break', () => {
  assert.equal(renderTextSide('a < b & "c"\nline 2\r\nline 3\rline 4'), '<p>a &lt; b &amp; &quot;c&quot;<br>\nline 2<br>\nline 3<br>\nline 4</p>');
});

test('should not interpret markdown, math or HTML in a text side', () => {
  assert.equal(renderTextSide('**bold** $x$ <b>b</b> [l](https://a.example)'),
    '<p>**bold** $x$ &lt;b&gt;b&lt;/b&gt; [l](https://a.example)</p>');
});

test('should keep blank lines as line breaks and render an empty side as nothing', () => {
  assert.equal(renderTextSide('a\n\nb'), '<p>a<br>\n<br>\nb</p>');
  assert.equal(renderTextSide(''), '');
});
