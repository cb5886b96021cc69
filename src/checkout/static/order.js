/*
 * The order and boleto pages' own script, after the copy buttons' (`copy.js`). Everything it does
 * is an extra: the pages work without it (a reload shows the order's current state, the browser
 * prints).
 * - Print buttons (hidden until this runs) print the page.
 * - A pending order's page asks `{checkout_url}/orders/<code>/status` every 2 s, every 10 s after 10
 *   minutes and every minute after an hour (a boleto's page may stay open for days); when the status
 *   changes it fetches the page again and shows it in place (focus on the new heading), or, when the
 *   page now redirects (to the seller's success_url), follows it.
 * Plain ES2019, sent as written: no build step.
 */
(function () {
  'use strict';
  // Buttons that need script are hidden in the markup; the content shown in place gets the same.
  function reveal(root, selector) {
    Array.prototype.forEach.call(root.querySelectorAll(selector), function (button) {
      button.hidden = false;
    });
  }
  document.addEventListener('click', function (event) {
    if (event.target instanceof Element && event.target.closest('button[data-print]')) window.print();
  });
  function refresh() {
    fetch(location.href, { redirect: 'manual', cache: 'no-store', headers: { accept: 'text/html' } })
      .then(function (res) {
        if (res.type === 'opaqueredirect' || (res.status >= 300 && res.status < 400)) {
          location.assign(location.href);
          return;
        }
        if (!res.ok) {
          location.reload();
          return;
        }
        return res.text().then(function (text) {
          var doc = new DOMParser().parseFromString(text, 'text/html');
          var fresh = doc.querySelector('main');
          var current = document.querySelector('main');
          if (!fresh || !current) {
            location.reload();
            return;
          }
          current.replaceWith(fresh);
          document.title = doc.title;
          reveal(fresh, 'button[data-copy], button[data-print]');
          var heading = fresh.querySelector('h1');
          if (heading) heading.focus();
          watch();
        });
      })
      .catch(function () {
        location.reload();
      });
  }
  function watch() {
    var order = document.getElementById('order');
    if (!order || !order.dataset.statusUrl) return;
    var url = order.dataset.statusUrl;
    var status = order.dataset.status;
    var started = Date.now();
    function later() {
      var open = Date.now() - started;
      setTimeout(check, open < 600000 ? 2000 : open < 3600000 ? 10000 : 60000);
    }
    function check() {
      fetch(url, { cache: 'no-store', headers: { accept: 'application/json' } })
        .then(function (res) {
          return res.ok ? res.json() : null;
        })
        .then(function (body) {
          if (body && typeof body.status === 'string' && body.status !== status) refresh();
          else later();
        })
        .catch(later);
    }
    later();
  }
  function start() {
    reveal(document, 'button[data-print]');
    watch();
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
