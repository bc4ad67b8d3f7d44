import { SandboxError } from './sandboxError.ts';
import { HONO_BUNDLE } from './honoBundle.generated.ts';
import { REALM_FETCH_SCRIPT } from './realmFetch.ts';

/** The libraries CUGAr ships for sandbox realms; a load names one (`SandboxLoadOptions.library`) or none. */
export type RealmLibraryName = 'hono';

/** A library a sandbox realm runs before the tool's code: the globals it adds and its script text. */
export interface RealmLibrary {
  /** The globals it defines (read-only, then frozen with the rest of the realm); tool code may name them. */
  readonly globals: readonly string[];
  /** A function expression, run inside the realm once its host globals are gone; it returns the globals by name. */
  readonly script: string;
}

/**
 * `hono`: Hono's `hono/tiny` (see {@link HONO_BUNDLE}) over the realm's own `Headers`, `Request`
 * and `Response` ({@link REALM_FETCH_SCRIPT}), so a Hono app answers `app.request` inside the
 * sandbox. Hono's default error handler logs to a `console` that writes nowhere.
 */
const HONO: RealmLibrary = {
  globals: ['Hono', 'Headers', 'Request', 'Response'],
  script: `(function cugarRealmHono() {
'use strict';
var fetchApi = ${REALM_FETCH_SCRIPT};
var Headers = fetchApi.Headers, Request = fetchApi.Request, Response = fetchApi.Response;
var console = { error: function () {}, warn: function () {}, log: function () {} };
${HONO_BUNDLE}
return { Hono: __honoTiny.Hono, Headers: Headers, Request: Request, Response: Response };
})`,
};

/** Every library by name. */
export const REALM_LIBRARIES: Readonly<Record<RealmLibraryName, RealmLibrary>> = { hono: HONO };

/** The library named `name`, or a `SandboxError('bad_input')` when CUGAr ships none by that name. */
export function realmLibrary(name: string): RealmLibrary {
  if (!Object.hasOwn(REALM_LIBRARIES, name))
    throw new SandboxError('bad_input', `no realm library ${JSON.stringify(name)}; there is ${Object.keys(REALM_LIBRARIES).join(', ')}`);
  return REALM_LIBRARIES[name as RealmLibraryName];
}
