import MarkdownIt from 'markdown-it';

/**
 * markdown-it's escaper (`&`, `<`, `>`, `"`), so every renderer escapes the same way. Every
 * attribute the renderer writes is double-quoted, which is what makes `"` the only quote to escape.
 */
export const escapeHtml: (text: string) => string = new MarkdownIt('zero').utils.escapeHtml;
