/*
 * The Meta pixel on an order's page (docs/ad-conversions.md, "The browser pixel"), loaded only for a
 * company whose `meta` integration has `browser_pixel` on. Everything it needs is in data- attributes
 * of `#order`: the pixel id, Meta's script, the order's value and currency, and the ids of the events
 * to report (`data-pixel-initiate-checkout`, the order.created event's; `data-pixel-purchase`, the
 * order.paid event's, present once the page shows the order paid). Each is reported with
 * `{eventID: <that id>}`, the `event_id` the Conversions API sent, so Meta counts it once
 * (developers.facebook.com/docs/marketing-api/conversions-api/deduplicate-pixel-and-server-events).
 * An id is reported once per browser tab (kept in sessionStorage), so a reload does not repeat it.
 * When order.js shows the paid state in place, `#order` is new: the Purchase id is read from it.
 * The page works the same without it (nothing here changes what the buyer sees).
 * Plain ES2019, sent as written: no build step, no inline script (the page's CSP allows none).
 */
(function () {
  'use strict';
  var reported = {};
  function seen(id) {
    if (reported[id]) return true;
    try {
      return window.sessionStorage.getItem('ad-pixel:' + id) === '1';
    } catch {
      return false;
    }
  }
  function remember(id) {
    reported[id] = true;
    try {
      window.sessionStorage.setItem('ad-pixel:' + id, '1');
    } catch {
      // Storage refused (private mode, full): kept for this page only.
    }
  }
  // Meta's base code (developers.facebook.com/docs/meta-pixel/get-started) as a file: a queue named
  // fbq until Meta's script, added here, takes it over; then the pixel's init.
  function start(order) {
    if (window.fbq) return;
    var fbq = function () {
      if (fbq.callMethod) fbq.callMethod.apply(fbq, arguments);
      else fbq.queue.push(arguments);
    };
    window.fbq = fbq;
    if (!window._fbq) window._fbq = fbq;
    fbq.push = fbq;
    fbq.loaded = true;
    fbq.version = '2.0';
    fbq.queue = [];
    var script = document.createElement('script');
    script.async = true;
    script.src = order.dataset.pixelScript;
    document.head.appendChild(script);
    fbq('init', order.dataset.pixelId);
  }
  function report() {
    var order = document.getElementById('order');
    if (!order || !order.dataset.pixelId || !order.dataset.pixelScript) return;
    start(order);
    var data = { value: Number(order.dataset.pixelValue), currency: order.dataset.pixelCurrency };
    [
      ['InitiateCheckout', order.dataset.pixelInitiateCheckout],
      ['Purchase', order.dataset.pixelPurchase],
    ].forEach(function (event) {
      var id = event[1];
      if (!id || seen(id)) return;
      remember(id);
      window.fbq('track', event[0], data, { eventID: id });
    });
  }
  function watch() {
    report();
    // order.js replaces <main> when the order's status changes: report what the new one names.
    new MutationObserver(report).observe(document.body, { childList: true });
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', watch);
  else watch();
})();
