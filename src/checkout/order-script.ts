/**
 * The one script of the buyer pages, served at `{checkout_url}/assets/order.js` for the order and
 * boleto pages. Everything it does is an extra: the pages work without it (the code can be selected
 * and copied by hand, a reload shows the order's current state, the browser prints).
 * - Copy buttons (hidden until this runs) copy a Pix code or a linha digitável and say so.
 * - A pending order's page asks `{checkout_url}/orders/<code>/status` every 2 s, every 10 s after 10
 *   minutes and every minute after an hour (a boleto's page may stay open for days); when the status
 *   changes it fetches the page again and shows it in place (focus on the new heading), or, when the
 *   page now redirects (to the seller's success_url), follows it.
 * Written as plain ES2017 so it runs as sent, without a build step.
 */
export const ORDER_SCRIPT = `(function () {
  'use strict';
  function copyText(target) {
    if (target.dataset.copyValue) return target.dataset.copyValue;
    if (typeof target.value === 'string') return target.value.trim();
    return target.textContent.trim();
  }
  function selectForCopy(target) {
    if (typeof target.select === 'function') { target.select(); return; }
    var range = document.createRange();
    range.selectNodeContents(target);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
  function wire(root) {
    Array.prototype.forEach.call(root.querySelectorAll('button[data-copy]'), function (button) {
      button.hidden = false;
      button.addEventListener('click', function () {
        var target = document.getElementById(button.dataset.copy);
        var status = document.getElementById(button.dataset.copy + '-status');
        if (!target) return;
        var text = copyText(target);
        var say = function (ok) { if (status) status.textContent = ok ? button.dataset.copied : button.dataset.copyFailed; };
        var fallback = function () {
          try { selectForCopy(target); say(document.execCommand('copy')); } catch (e) { say(false); }
        };
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(text).then(function () { say(true); }, fallback);
        } else {
          fallback();
        }
      });
    });
    Array.prototype.forEach.call(root.querySelectorAll('button[data-print]'), function (button) {
      button.hidden = false;
      button.addEventListener('click', function () { window.print(); });
    });
  }
  function refresh() {
    fetch(location.href, { redirect: 'manual', cache: 'no-store', headers: { accept: 'text/html' } })
      .then(function (res) {
        if (res.type === 'opaqueredirect' || (res.status >= 300 && res.status < 400)) {
          location.assign(location.href);
          return;
        }
        if (!res.ok) { location.reload(); return; }
        return res.text().then(function (text) {
          var doc = new DOMParser().parseFromString(text, 'text/html');
          var fresh = doc.querySelector('main');
          var current = document.querySelector('main');
          if (!fresh || !current) { location.reload(); return; }
          current.replaceWith(fresh);
          document.title = doc.title;
          wire(fresh);
          var heading = fresh.querySelector('h1');
          if (heading) heading.focus();
          watch();
        });
      })
      .catch(function () { location.reload(); });
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
        .then(function (res) { return res.ok ? res.json() : null; })
        .then(function (body) {
          if (body && typeof body.status === 'string' && body.status !== status) refresh();
          else later();
        })
        .catch(later);
    }
    later();
  }
  function start() { wire(document); watch(); }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
`;
