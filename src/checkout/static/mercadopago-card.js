/*
 * The checkout's card form for a company connected to Mercado Pago, after MercadoPago.js (loaded from
 * MERCADOPAGO_SDK_URL by the same page). MP's Secure Fields mount the card number, expiry and
 * security code as MP's own iframes in the page's boxes, so the numbers never reach this page nor
 * this service. On submit with the card chosen, MP makes a single-use token from them; the form posts
 * the token, the brand (from the number's first digits) and the issuer, never the card.
 * Without this script (or MercadoPago.js) the boxes stay empty and the form says a card needs
 * JavaScript; Pix and boleto work as ever.
 * Plain ES2019, sent as written: no build step.
 */
(function () {
  'use strict';
  var form = document.querySelector('form[data-mp-public-key]');
  if (!form || typeof window.MercadoPago !== 'function') return;
  var field = function (name) {
    return form.querySelector('input[name="' + name + '"]');
  };
  var token = field('card_token');
  var brand = field('card_payment_method_id');
  var issuer = field('card_issuer_id');
  var holder = document.getElementById('card_holder');
  var problem = document.getElementById('card-script-error');
  var locale = form.getAttribute('data-mp-locale') === 'en' ? 'en-US' : 'pt-BR';
  var mp = new window.MercadoPago(form.getAttribute('data-mp-public-key'), { locale: locale });

  var cardNumber = mp.fields
    .create('cardNumber', { placeholder: '0000 0000 0000 0000' })
    .mount('mp-card-number');
  mp.fields.create('expirationDate', { placeholder: 'MM/AA' }).mount('mp-expiration');
  mp.fields.create('securityCode', { placeholder: '123' }).mount('mp-security-code');

  // The brand and issuer follow the number as it is typed.
  var lookup = Promise.resolve();
  cardNumber.on('binChange', function (event) {
    var bin = event && event.bin;
    if (!bin) {
      brand.value = '';
      issuer.value = '';
      return;
    }
    lookup = mp.getPaymentMethods({ bin: bin }).then(
      function (found) {
        var method = found && found.results && found.results[0];
        brand.value = method ? method.id : '';
        issuer.value =
          method && method.issuer && method.issuer.id !== undefined ? String(method.issuer.id) : '';
      },
      function () {
        brand.value = '';
      },
    );
  });

  function chosenMethod() {
    var checked = form.querySelector('input[name="payment_method"]:checked');
    return checked ? checked.value : 'credit_card';
  }

  // The buyer's CPF or CNPJ, when given, is the card holder's identification too.
  function identification() {
    var document_ = form.querySelector('input[name="document"]');
    var digits = document_ ? document_.value.replace(/\D/g, '') : '';
    if (digits.length === 11) return { identificationType: 'CPF', identificationNumber: digits };
    if (digits.length === 14) return { identificationType: 'CNPJ', identificationNumber: digits };
    return {};
  }

  // Each method shows only what it asks for (without this script every group shows, each saying
  // what it is for).
  var cardGroup = form.querySelector('fieldset.card');
  var addressGroup = form.querySelector('fieldset.address');
  function showChosen() {
    var method = chosenMethod();
    if (cardGroup) cardGroup.hidden = method !== 'credit_card';
    if (addressGroup) addressGroup.hidden = method !== 'boleto';
  }
  form.addEventListener('change', function (event) {
    if (event.target instanceof HTMLInputElement && event.target.name === 'payment_method') showChosen();
  });
  showChosen();

  var submitting = false;
  form.addEventListener('submit', function (event) {
    if (chosenMethod() !== 'credit_card' || submitting) return;
    event.preventDefault();
    submitting = true;
    problem.hidden = true;
    var data = Object.assign({ cardholderName: holder.value.trim() }, identification());
    lookup
      .then(function () {
        return mp.fields.createCardToken(data);
      })
      .then(function (made) {
        token.value = made.id;
        form.submit();
      })
      .catch(function () {
        submitting = false;
        token.value = '';
        problem.hidden = false;
        problem.focus();
      });
  });
})();
