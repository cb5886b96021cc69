/**
 * MercadoPago.js as the stand-in serves it: the text of `GET /js/v2` and of the Secure Fields'
 * iframes. It follows the surface of MP's "SDK JS" reference (sdk-js docs "Core methods" and
 * "Fields module", and the Checkout Transparente pages "Core Methods" / "Secure Fields"):
 * `new MercadoPago(publicKey, {locale})`, `getPaymentMethods({bin})`, and `mp.fields.create(type,
 * {placeholder, srLabel, ariaRequired})` → `mount(containerId)`, `on(event, cb)` (`ready`,
 * `binChange`, `validityChange`, `change`, `focus`, `blur`, `error`), `update({placeholder,
 * settings})`, `focus()`, `blur()`, `unmount()`; `mp.fields.createCardToken({cardholderName,
 * identificationType, identificationNumber})`.
 *
 * As in MP's SDK, the card number, expiry and CVV live only inside iframes served by the stand-in's
 * origin: the page talks to them by postMessage and gets back events and the token, never the card
 * data. At createCardToken the card-number frame reads its sibling frames (same origin as itself)
 * and POSTs `/v1/card_tokens` itself.
 *
 * Written as strings: the project compiles without the DOM library, and this code runs in a browser.
 */

export const FIELD_TYPES = [
  'cardNumber',
  'expirationDate',
  'expirationMonth',
  'expirationYear',
  'securityCode',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const isFieldType = (value: string): value is FieldType =>
  (FIELD_TYPES as readonly string[]).includes(value);

type Locale = 'pt-BR' | 'en-US' | 'es';

/** Each field's accessible name: the iframe's title and the label of the input inside it. */
const TITLES: Record<Locale, Record<FieldType, string>> = {
  'pt-BR': {
    cardNumber: 'Número do cartão',
    expirationDate: 'Data de vencimento',
    expirationMonth: 'Mês de vencimento',
    expirationYear: 'Ano de vencimento',
    securityCode: 'Código de segurança',
  },
  'en-US': {
    cardNumber: 'Card number',
    expirationDate: 'Expiration date',
    expirationMonth: 'Expiration month',
    expirationYear: 'Expiration year',
    securityCode: 'Security code',
  },
  es: {
    cardNumber: 'Número de tarjeta',
    expirationDate: 'Fecha de vencimiento',
    expirationMonth: 'Mes de vencimiento',
    expirationYear: 'Año de vencimiento',
    securityCode: 'Código de seguridad',
  },
};

const AUTOCOMPLETE: Record<FieldType, string> = {
  cardNumber: 'cc-number',
  expirationDate: 'cc-exp',
  expirationMonth: 'cc-exp-month',
  expirationYear: 'cc-exp-year',
  securityCode: 'cc-csc',
};

const MAX_LENGTH: Record<FieldType, number> = {
  cardNumber: 23,
  expirationDate: 7,
  expirationMonth: 2,
  expirationYear: 4,
  securityCode: 4,
};

export const localeOf = (value: string | undefined): Locale =>
  value?.startsWith('pt') ? 'pt-BR' : value?.startsWith('es') ? 'es' : 'en-US';

/** A value for a script: JSON, with `<` escaped so no string can close the script element. */
const js = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c');

const html = (value: string): string => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The script at `GET /js/v2`: defines `window.MercadoPago`, talking to the stand-in at `origin`. */
export function sdkScript(origin: string): string {
  return `/* MercadoPago.js v2: the Mercado Pago stand-in's (tests only). */
(function () {
  'use strict';
  var ORIGIN = ${js(origin)};
  var TITLES = ${js(TITLES)};
  var FIELD_TYPES = ${js(FIELD_TYPES)};
  var instances = 0;

  function query(params) {
    return Object.keys(params)
      .filter(function (k) { return params[k] !== undefined && params[k] !== null; })
      .map(function (k) { return encodeURIComponent(k) + '=' + encodeURIComponent(params[k]); })
      .join('&');
  }
  function localeOf(value) {
    var v = String(value || navigator.language || 'en-US');
    return v.indexOf('pt') === 0 ? 'pt-BR' : v.indexOf('es') === 0 ? 'es' : 'en-US';
  }
  function getJson(path, params) {
    return fetch(ORIGIN + path + '?' + query(params)).then(function (response) {
      return response.json().then(function (body) {
        if (!response.ok) throw body;
        return body;
      });
    });
  }
  function causesOf(body) {
    var cause = body && Array.isArray(body.cause) ? body.cause : [];
    return cause.map(function (c) { return { cause: String(c.code), message: c.description }; });
  }

  function MercadoPago(publicKey, options) {
    if (!(this instanceof MercadoPago)) throw new TypeError('MercadoPago must be called with new');
    if (typeof publicKey !== 'string' || publicKey === '') throw new Error('MercadoPago.js - Public key is required');
    var sdk = this;
    var group = 'mp' + ++instances + '-' + Math.random().toString(36).slice(2, 10);
    var locale = localeOf(options && options.locale);
    var fields = {};
    var waiting = {};
    var requests = 0;
    this.publicKey = publicKey;
    this.locale = locale;

    window.addEventListener('message', function (event) {
      if (event.origin !== ORIGIN) return;
      var msg = event.data;
      if (!msg || msg.source !== 'mp-stand-in' || msg.group !== group) return;
      if (msg.kind === 'event') {
        var field = fields[msg.field];
        if (field) field._emit(msg.event, msg.data);
      } else if (msg.kind === 'token') {
        var pending = waiting[msg.requestId];
        if (!pending) return;
        delete waiting[msg.requestId];
        if (msg.ok) pending.resolve(msg.body);
        else pending.reject(msg.errors || causesOf(msg.body));
      }
    });

    function Field(type, options) {
      this.type = type;
      this.options = options || {};
      this.iframe = null;
      this.listeners = {};
      this.queue = [];
      this.isReady = false;
      var self = this;
      this.ready = new Promise(function (resolve) { self._resolveReady = resolve; });
    }
    Field.prototype.mount = function (containerId) {
      var container = document.getElementById(containerId);
      if (!container) throw new Error('MercadoPago.js - container "' + containerId + '" not found');
      if (this.iframe) this.unmount();
      var iframe = document.createElement('iframe');
      iframe.src = ORIGIN + '/js/v2/fields/' + this.type + '?' + query({
        group: group,
        public_key: publicKey,
        parent_origin: location.origin,
        locale: locale,
        placeholder: this.options.placeholder,
        sr_label: this.options.srLabel,
        aria_required: this.options.ariaRequired === undefined ? undefined : String(this.options.ariaRequired),
      });
      iframe.title = this.options.srLabel || TITLES[locale][this.type];
      iframe.name = group + '-' + this.type;
      iframe.setAttribute('frameborder', '0');
      iframe.setAttribute('allowtransparency', 'true');
      iframe.style.cssText = 'display:block;width:100%;height:100%;min-height:2.5rem;border:0;';
      container.appendChild(iframe);
      this.iframe = iframe;
      return this;
    };
    Field.prototype.unmount = function () {
      if (this.iframe && this.iframe.parentNode) this.iframe.parentNode.removeChild(this.iframe);
      this.iframe = null;
      this.isReady = false;
      var self = this;
      this.ready = new Promise(function (resolve) { self._resolveReady = resolve; });
      return this;
    };
    Field.prototype.on = function (event, callback) {
      (this.listeners[event] = this.listeners[event] || []).push(callback);
      return this;
    };
    Field.prototype._post = function (msg) {
      msg.source = 'mp-stand-in-sdk';
      msg.group = group;
      if (this.isReady && this.iframe && this.iframe.contentWindow) this.iframe.contentWindow.postMessage(msg, ORIGIN);
      else this.queue.push(msg);
    };
    Field.prototype._emit = function (event, data) {
      if (event === 'ready') {
        this.isReady = true;
        this._resolveReady();
        var queued = this.queue;
        this.queue = [];
        for (var i = 0; i < queued.length; i++) this._post(queued[i]);
      }
      var callbacks = this.listeners[event] || [];
      for (var j = 0; j < callbacks.length; j++) {
        try { callbacks[j](data); } catch (err) { setTimeout(function () { throw err; }); }
      }
    };
    Field.prototype.update = function (properties) {
      this._post({ kind: 'update', properties: properties || {} });
      return this;
    };
    Field.prototype.focus = function () { this._post({ kind: 'focus' }); return this; };
    Field.prototype.blur = function () { this._post({ kind: 'blur' }); return this; };

    this.fields = {
      create: function (type, options) {
        if (FIELD_TYPES.indexOf(type) < 0) throw new Error('MercadoPago.js - unknown field type "' + type + '"');
        if (fields[type]) fields[type].unmount();
        var field = new Field(type, options);
        fields[type] = field;
        return field;
      },
      createCardToken: function (nonPCIData) {
        var card = fields.cardNumber;
        if (!card || !card.iframe) return Promise.reject([{ field: 'cardNumber', cause: 'missing_field', message: 'cardNumber field is not mounted' }]);
        var mounted = Object.keys(fields).filter(function (t) { return fields[t].iframe; });
        var timeout = new Promise(function (_, reject) {
          setTimeout(function () { reject([{ cause: 'timeout', message: 'secure fields did not load' }]); }, 10000);
        });
        return Promise.race([
          Promise.all(mounted.map(function (t) { return fields[t].ready; })),
          timeout,
        ]).then(function () {
          return new Promise(function (resolve, reject) {
            var requestId = 'r' + ++requests;
            waiting[requestId] = { resolve: resolve, reject: reject };
            card._post({ kind: 'createCardToken', requestId: requestId, nonPCIData: nonPCIData || {} });
          });
        });
      },
      focus: function (type) { if (fields[type]) fields[type].focus(); },
      blur: function (type) { if (fields[type]) fields[type].blur(); },
    };
  }

  MercadoPago.prototype.getPaymentMethods = function (params) {
    if (!params || !params.bin) return Promise.reject(new Error('MercadoPago.js - bin is required'));
    return getJson('/v1/payment_methods/search', {
      public_key: this.publicKey,
      bins: params.bin,
      marketplace: 'NONE',
      status: 'active',
      processing_mode: params.processingMode,
    });
  };
  window.MercadoPago = MercadoPago;
})();
`;
}

export interface FieldFrameOptions {
  type: FieldType;
  group: string;
  publicKey: string;
  parentOrigin: string;
  locale: string | undefined;
  placeholder: string | undefined;
  srLabel: string | undefined;
  ariaRequired: boolean;
}

/**
 * One Secure Field's document: a labelled input, and the script that reports its events to the
 * page and (for the card number) makes the token from it and its sibling frames.
 */
export function fieldFrame(options: FieldFrameOptions): string {
  const locale = localeOf(options.locale);
  const label = options.srLabel ?? TITLES[locale][options.type];
  const placeholder = options.placeholder ? ` placeholder="${html(options.placeholder)}"` : '';
  return `<!doctype html>
<html lang="${locale}" data-mp-field="${options.type}" data-mp-group="${html(options.group)}">
<head>
<meta charset="utf-8">
<title>${html(label)}</title>
<style>
  html, body { margin: 0; padding: 0; height: 100%; background: #fff; }
  .sr-only { position: absolute; width: 1px; height: 1px; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
  input { box-sizing: border-box; display: block; width: 100%; height: 100%; min-height: 2.25rem; margin: 0; padding: 0 0.5rem;
    border: 0; font: 16px/1.2 system-ui, sans-serif; color: #111; background: #fff; }
  input::placeholder { color: #595959; }
  input:focus { outline: 2px solid #1a56db; outline-offset: -2px; }
</style>
</head>
<body>
<label class="sr-only" for="field">${html(label)}</label>
<input id="field" name="${options.type}" type="text" inputmode="numeric" autocomplete="${AUTOCOMPLETE[options.type]}"
  maxlength="${MAX_LENGTH[options.type]}" spellcheck="false"${placeholder}${options.ariaRequired ? ' aria-required="true"' : ''}>
<script>
(function () {
  'use strict';
  var FIELD = ${js(options.type)};
  var GROUP = ${js(options.group)};
  var PARENT = ${js(options.parentOrigin)};
  var PUBLIC_KEY = ${js(options.publicKey)};
  var input = document.getElementById('field');
  var settings = { length: null };
  var lastBin = null;
  var lastErrors = null;
  var touched = false;

  function send(kind, extra) {
    var msg = { source: 'mp-stand-in', group: GROUP, kind: kind, field: FIELD };
    for (var k in extra) msg[k] = extra[k];
    parent.postMessage(msg, PARENT);
  }
  function emit(event, data) { send('event', { event: event, data: data }); }
  function digits(value) { return String(value || '').replace(/\\D/g, ''); }
  function luhn(number) {
    var sum = 0;
    for (var i = 0; i < number.length; i++) {
      var d = Number(number[number.length - 1 - i]);
      if (i % 2 === 1) { d *= 2; if (d > 9) d -= 9; }
      sum += d;
    }
    return sum % 10 === 0;
  }
  function expiry(value) {
    var m = /^\\s*(\\d{1,2})\\s*\\/\\s*(\\d{2}|\\d{4})\\s*$/.exec(value);
    if (!m) return null;
    var year = Number(m[2]);
    return { month: Number(m[1]), year: year < 100 ? 2000 + year : year };
  }
  function expiryErrors(month, year) {
    var now = new Date();
    if (!(month >= 1 && month <= 12)) return [{ cause: 'invalid_value', message: 'expirationMonth should be a value from 1 to 12.' }];
    if (year < now.getFullYear()) return [{ cause: 'invalid_value', message: 'expirationYear should be greater or equal than ' + now.getFullYear() + '.' }];
    if (year === now.getFullYear() && month < now.getMonth() + 1)
      return [{ cause: 'invalid_value', message: "expirationMonth value should be greater than '" + now.getMonth() + "' or expirationYear value should be greater than '" + now.getFullYear() + "'." }];
    return [];
  }
  function errors() {
    var value = input.value.trim();
    if (FIELD === 'cardNumber') {
      if (/[^\\d ]/.test(value)) return [{ cause: 'invalid_type', message: 'cardNumber should be a number.' }];
      var n = digits(value);
      var min = settings.length || 13, max = settings.length || 19;
      if (n.length < min || n.length > max) return [{ cause: 'invalid_length', message: "cardNumber should be of length between '" + min + "' and '" + max + "'." }];
      if (!luhn(n)) return [{ cause: 'invalid_value', message: 'card number rejected on Luhn Validation.' }];
      return [];
    }
    if (FIELD === 'securityCode') {
      if (/\\D/.test(value)) return [{ cause: 'invalid_type', message: 'securityCode should be a number.' }];
      if (settings.length ? value.length !== settings.length : value.length < 3 || value.length > 4)
        return [{ cause: 'invalid_length', message: "securityCode should be of length '" + (settings.length || 3) + "'." }];
      return [];
    }
    if (FIELD === 'expirationDate') {
      var e = expiry(value);
      if (!e) return [{ cause: 'invalid_type', message: 'expirationDate should be MM/YY or MM/YYYY.' }];
      return expiryErrors(e.month, e.year);
    }
    if (/\\D/.test(value) || value === '') return [{ cause: 'invalid_type', message: FIELD + ' should be a number.' }];
    return [];
  }
  function checkValidity() {
    var found = errors();
    var key = JSON.stringify(found);
    if (key === lastErrors) return;
    lastErrors = key;
    input.setAttribute('aria-invalid', found.length ? 'true' : 'false');
    emit('validityChange', { field: FIELD, errorMessages: found });
  }

  input.addEventListener('input', function () {
    if (FIELD === 'cardNumber') {
      var n = digits(input.value);
      var bin = n.length >= 8 ? n.slice(0, 8) : null;
      if (bin !== lastBin) {
        lastBin = bin;
        emit('binChange', { bin: bin, field: FIELD });
      }
    }
    emit('change', { field: FIELD });
    if (touched) checkValidity();
  });
  input.addEventListener('paste', function () { emit('paste', { field: FIELD }); });
  input.addEventListener('focus', function () { emit('focus', { field: FIELD }); });
  input.addEventListener('blur', function () {
    touched = true;
    emit('blur', { field: FIELD });
    checkValidity();
  });

  /** A sibling field's value: a frame of the same SDK instance, same origin as this one. */
  function sibling(type) {
    for (var i = 0; i < parent.frames.length; i++) {
      try {
        var root = parent.frames[i].document.documentElement;
        if (root.getAttribute('data-mp-group') === GROUP && root.getAttribute('data-mp-field') === type)
          return parent.frames[i].document.getElementById('field').value;
      } catch (err) { /* another origin's frame */ }
    }
    return null;
  }

  function createToken(nonPCIData) {
    var problems = errors().map(function (e) { return { field: FIELD, cause: e.cause, message: e.message }; });
    var month, year;
    var date = sibling('expirationDate');
    if (date !== null) {
      var e = expiry(date);
      if (e) { month = e.month; year = e.year; }
      else problems.push({ field: 'expirationDate', cause: 'invalid_type', message: 'expirationDate should be MM/YY or MM/YYYY.' });
    } else {
      month = Number(sibling('expirationMonth'));
      year = Number(sibling('expirationYear'));
      if (year < 100) year += 2000;
    }
    var cvv = sibling('securityCode');
    if (cvv === null) problems.push({ field: 'securityCode', cause: 'missing_field', message: 'securityCode field is not mounted' });
    if (problems.length) return Promise.resolve({ ok: false, errors: problems });
    var identification = {};
    if (nonPCIData.identificationType) identification.type = nonPCIData.identificationType;
    if (nonPCIData.identificationNumber) identification.number = nonPCIData.identificationNumber;
    var body = {
      card_number: digits(input.value),
      expiration_month: month,
      expiration_year: year,
      security_code: cvv,
      cardholder: { name: nonPCIData.cardholderName, identification: identification },
    };
    return fetch('/v1/card_tokens?public_key=' + encodeURIComponent(PUBLIC_KEY), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(function (response) {
      return response.json().then(function (json) { return { ok: response.ok, body: json }; });
    }, function (err) {
      return { ok: false, errors: [{ cause: 'network', message: String(err) }] };
    });
  }

  window.addEventListener('message', function (event) {
    if (event.origin !== PARENT) return;
    var msg = event.data;
    if (!msg || msg.source !== 'mp-stand-in-sdk' || msg.group !== GROUP) return;
    if (msg.kind === 'update') {
      var p = msg.properties;
      if (typeof p.placeholder === 'string') input.placeholder = p.placeholder;
      if (p.settings && typeof p.settings.length === 'number') {
        settings.length = p.settings.length;
        if (FIELD === 'securityCode') input.maxLength = p.settings.length;
        if (touched) checkValidity();
      }
      if (typeof p.invalid === 'boolean') input.setAttribute('aria-invalid', String(p.invalid));
    } else if (msg.kind === 'focus') input.focus();
    else if (msg.kind === 'blur') input.blur();
    else if (msg.kind === 'createCardToken' && FIELD === 'cardNumber') {
      createToken(msg.nonPCIData || {}).then(function (result) {
        send('token', { requestId: msg.requestId, ok: result.ok, body: result.body, errors: result.errors });
      });
    }
  });

  emit('ready', { field: FIELD });
})();
</script>
</body>
</html>
`;
}
