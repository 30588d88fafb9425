// The editor's improvements (served as a file: the pages' CSP allows no inline script); without
// them every form still works.
// - Live preview: while the person types in the card form, the form is sent to the preview
//   endpoint, which renders it with the same renderer as the learning view; its HTML replaces the
//   preview. Nothing is saved.
// - Card search as you type: the search form's own GET (the editor page with ?q=) is fetched and
//   its card list put in place of this one, so the list is filtered by the server's one search.
'use strict';
(function () {
  const form = document.querySelector('form[data-card-form]');
  const preview = document.querySelector('[data-preview]');
  if (form && preview) {
    const url = form.getAttribute('data-preview-url');
    let timer = null;
    let sent = 0;

    const refresh = function () {
      const mine = ++sent;
      const body = new URLSearchParams();
      // Text fields only: the image files are uploaded by the form's own submit.
      new FormData(form).forEach(function (value, name) { if (typeof value === 'string') body.append(name, value); });
      fetch(url, { method: 'POST', body: body, credentials: 'same-origin', headers: { accept: 'text/html' } })
        .then(function (response) { return response.ok ? response.text() : null; })
        .then(function (html) {
          // Only the latest answer counts; the HTML comes from the server's card renderer.
          if (html === null || mine !== sent) return;
          preview.innerHTML = html;
          // A formula needs KaTeX's stylesheet, which the page leaves out until one is shown.
          const css = preview.getAttribute('data-katex-css');
          if (html.indexOf('class="katex') !== -1 && css && !document.querySelector('link[href="' + css + '"]')) {
            const link = document.createElement('link');
            link.rel = 'stylesheet';
            link.href = css;
            document.head.appendChild(link);
          }
        })
        .catch(function () {});
    };

    form.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(refresh, 250);
    });
  }

  const search = document.querySelector('form[data-card-search]');
  const list = document.querySelector('[data-card-list]');
  if (search && list) {
    const field = search.querySelector('input[name="q"]');
    let timer = null;
    let asked = 0;

    const filter = function () {
      const mine = ++asked;
      const query = new URLSearchParams();
      new FormData(search).forEach(function (value, name) { if (typeof value === 'string') query.append(name, value); });
      const target = search.getAttribute('action') + '?' + query.toString();
      fetch(target, { credentials: 'same-origin', headers: { accept: 'text/html' } })
        .then(function (response) { return response.ok ? response.text() : null; })
        .then(function (html) {
          if (html === null || mine !== asked) return;
          const found = new window.DOMParser().parseFromString(html, 'text/html').querySelector('[data-card-list]');
          if (found) list.replaceChildren.apply(list, Array.from(found.childNodes));
          window.history.replaceState(null, '', target);
        })
        .catch(function () {});
    };

    field.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(filter, 200);
    });
  }
})();
