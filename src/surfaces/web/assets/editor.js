// The editor's live preview (served as a file: the pages' CSP allows no inline script). While the
// person types in the card form, the form is sent to the preview endpoint, which renders it with
// the same renderer as the learning view; its HTML replaces the preview. Nothing is saved.
'use strict';
(function () {
  const form = document.querySelector('form[data-card-form]');
  const preview = document.querySelector('[data-preview]');
  if (!form || !preview) return;
  const url = form.getAttribute('data-preview-url');
  let timer = null;
  let sent = 0;

  function refresh() {
    const mine = ++sent;
    const body = new URLSearchParams(new FormData(form));
    fetch(url, { method: 'POST', body: body, credentials: 'same-origin', headers: { accept: 'text/html' } })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) {
        // Only the latest answer counts; the HTML comes from the server's card renderer.
        if (html !== null && mine === sent) preview.innerHTML = html;
      })
      .catch(function () {});
  }

  form.addEventListener('input', function () {
    clearTimeout(timer);
    timer = setTimeout(refresh, 250);
  });
})();
