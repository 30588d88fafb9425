// markdown-it-task-lists ships no types; this is the part of its interface the renderer uses.
declare module 'markdown-it-task-lists' {
  import type { MarkdownIt } from 'markdown-it';

  interface TaskListsOptions {
    /** Checkboxes enabled (clickable); false renders them `disabled`. */
    enabled?: boolean;
    /** Wrap the item's text and checkbox in a `<label>`. */
    label?: boolean;
    /** Put the label after the checkbox, tied by a random id (not deterministic: never used). */
    labelAfter?: boolean;
  }

  const taskLists: (md: MarkdownIt, options?: TaskListsOptions) => void;
  export default taskLists;
}
