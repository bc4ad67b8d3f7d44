/**
 * `Headers`, `Request` and `Response` for a sandbox realm, as script text run inside the realm
 * (never by the host). A Node sandbox realm is a bare `vm` context with no fetch classes, and
 * handing it the host's would hand it the host realm's `Function` through their prototypes; so
 * the realm builds its own, from the language alone, the same on every host.
 *
 * They cover what a Hono app needs to answer `app.request`: headers (case-insensitive, in name
 * order, several values joined by `, `), absolute `http(s):` URLs as strings, text, JSON and
 * UTF-8 `arrayBuffer` bodies read once, `clone`, status 200–599 (204, 205 and 304 with no body). There are no streams (`body` is the text, or `null`), no `formData`, no `blob`, no
 * `signal` and no network: nothing here fetches. The script's completion value is
 * `{ Headers, Request, Response }`.
 */
export const REALM_FETCH_SCRIPT = `(function cugarRealmFetch() {
  'use strict';
  function utf8Encode(text) {
    var bytes = [];
    for (var i = 0; i < text.length; i++) {
      var c = text.codePointAt(i);
      if (c > 0xffff) i++;
      if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
      if (c < 0x80) bytes.push(c);
      else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 63));
      else if (c < 0x10000) bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      else bytes.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
    return new Uint8Array(bytes);
  }
  function utf8Decode(bytes) {
    var out = '';
    for (var i = 0; i < bytes.length; ) {
      var b = bytes[i], need = b < 0x80 ? 0 : b >= 0xf0 && b < 0xf8 ? 3 : b >= 0xe0 ? 2 : b >= 0xc2 && b < 0xe0 ? 1 : -1;
      if (need < 0 || i + need >= bytes.length + (need === 0 ? 1 : 0)) { out += '\\ufffd'; i++; continue; }
      var c = need === 0 ? b : b & (0x3f >> need), ok = true;
      for (var k = 1; k <= need; k++) {
        if ((bytes[i + k] & 0xc0) !== 0x80) { ok = false; break; }
        c = (c << 6) | (bytes[i + k] & 63);
      }
      if (!ok || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff) || (need === 2 && c < 0x800) || (need === 3 && c < 0x10000)) { out += '\\ufffd'; i++; continue; }
      out += String.fromCodePoint(c);
      i += need + 1;
    }
    return out;
  }
  var TOKEN = /^[!#$%&'*+.^_\`|~0-9A-Za-z-]+$/;
  function headerName(name) {
    var text = String(name);
    if (!TOKEN.test(text)) throw new TypeError('invalid header name: ' + text);
    return text.toLowerCase();
  }
  function headerValue(value) {
    var text = String(value).replace(/^[\\t\\n\\r ]+|[\\t\\n\\r ]+$/g, '');
    if (/[\\0\\r\\n]/.test(text)) throw new TypeError('invalid header value');
    return text;
  }
  class Headers {
    #map = new Map();
    constructor(init) {
      if (init === undefined || init === null) return;
      if (init instanceof Headers) init.forEach((value, name) => this.append(name, value));
      else if (typeof init[Symbol.iterator] === 'function') {
        for (var pair of init) {
          var entry = Array.from(pair);
          if (entry.length !== 2) throw new TypeError('a header pair has two items');
          this.append(entry[0], entry[1]);
        }
      } else if (typeof init === 'object') {
        for (var key of Object.keys(init)) this.append(key, init[key]);
      } else throw new TypeError('Headers takes pairs, a record or Headers');
    }
    append(name, value) {
      var key = headerName(name), list = this.#map.get(key);
      if (list) list.push(headerValue(value));
      else this.#map.set(key, [headerValue(value)]);
    }
    set(name, value) {
      this.#map.set(headerName(name), [headerValue(value)]);
    }
    get(name) {
      var list = this.#map.get(headerName(name));
      return list ? list.join(', ') : null;
    }
    getSetCookie() {
      return (this.#map.get('set-cookie') || []).slice();
    }
    has(name) {
      return this.#map.has(headerName(name));
    }
    delete(name) {
      this.#map.delete(headerName(name));
    }
    forEach(callback, thisArg) {
      for (var pair of this.entries()) callback.call(thisArg, pair[1], pair[0], this);
    }
    *entries() {
      var names = Array.from(this.#map.keys()).sort();
      for (var name of names) {
        if (name === 'set-cookie') for (var cookie of this.#map.get(name)) yield [name, cookie];
        else yield [name, this.#map.get(name).join(', ')];
      }
    }
    *keys() {
      for (var pair of this.entries()) yield pair[0];
    }
    *values() {
      for (var pair of this.entries()) yield pair[1];
    }
    [Symbol.iterator]() {
      return this.entries();
    }
  }
  function bodyText(body) {
    if (body === undefined || body === null) return null;
    if (typeof body === 'string') return body;
    if (body instanceof ArrayBuffer) return utf8Decode(new Uint8Array(body));
    if (ArrayBuffer.isView(body)) return utf8Decode(new Uint8Array(body.buffer, body.byteOffset, body.byteLength));
    return String(body);
  }
  class Body {
    #text;
    #used = false;
    constructor(text, headers) {
      this.#text = text;
      this.headers = headers;
      if (text !== null && !headers.has('content-type')) headers.set('content-type', 'text/plain;charset=UTF-8');
    }
    get body() {
      return this.#text;
    }
    get bodyUsed() {
      return this.#used;
    }
    #take() {
      if (this.#used) return Promise.reject(new TypeError('the body has already been read'));
      this.#used = true;
      return Promise.resolve(this.#text === null ? '' : this.#text);
    }
    text() {
      return this.#take();
    }
    json() {
      return this.#take().then((text) => JSON.parse(text));
    }
    arrayBuffer() {
      return this.#take().then((text) => utf8Encode(text).buffer);
    }
    bytes() {
      return this.#take().then((text) => utf8Encode(text));
    }
    formData() {
      return Promise.reject(new TypeError('formData is not available in the sandbox'));
    }
    blob() {
      return Promise.reject(new TypeError('blob is not available in the sandbox'));
    }
  }
  var METHOD = /^[!#$%&'*+.^_\`|~0-9A-Za-z-]+$/;
  var NORMALISED = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT'];
  class Request extends Body {
    constructor(input, init) {
      var options = init || {};
      var source = input instanceof Request ? input : null;
      var url = source ? source.url : String(input);
      if (!/^https?:\\/\\/[^\\s]*$/i.test(url)) throw new TypeError('the sandbox takes absolute http(s) URLs only: ' + url);
      var method = options.method === undefined ? (source ? source.method : 'GET') : String(options.method);
      if (!METHOD.test(method)) throw new TypeError('invalid method: ' + method);
      if (NORMALISED.indexOf(method.toUpperCase()) >= 0) method = method.toUpperCase();
      var headers = new Headers(options.headers !== undefined ? options.headers : source ? source.headers : undefined);
      var text = options.body !== undefined ? bodyText(options.body) : source ? source.body : null;
      if (text !== null && (method === 'GET' || method === 'HEAD')) throw new TypeError('a ' + method + ' request has no body');
      super(text, headers);
      this.url = url;
      this.method = method;
    }
    clone() {
      if (this.bodyUsed) throw new TypeError('the body has already been read');
      return new Request(this);
    }
  }
  var NULL_BODY = [204, 205, 304];
  class Response extends Body {
    constructor(body, init) {
      var options = init || {};
      var status = options.status === undefined ? 200 : Number(options.status);
      if (!Number.isInteger(status) || status < 200 || status > 599) throw new RangeError('a response status is from 200 to 599, not ' + options.status);
      var text = bodyText(body);
      if (text !== null && NULL_BODY.indexOf(status) >= 0) throw new TypeError('a ' + status + ' response has no body');
      super(text, new Headers(options.headers));
      this.status = status;
      this.statusText = options.statusText === undefined ? '' : String(options.statusText);
      this.ok = status >= 200 && status < 300;
      this.type = 'default';
      this.redirected = false;
      this.url = '';
    }
    clone() {
      if (this.bodyUsed) throw new TypeError('the body has already been read');
      return new Response(this.body, this);
    }
    static json(data, init) {
      var options = init || {};
      var headers = new Headers(options.headers);
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
      return new Response(JSON.stringify(data), { status: options.status, statusText: options.statusText, headers: headers });
    }
  }
  return { Headers: Headers, Request: Request, Response: Response };
})()`;
