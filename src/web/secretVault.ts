import { openDB, type IDBPDatabase } from 'idb';
import * as z from 'zod';
import { SecretNameSchema, ValidationError, registerSecretValues, type Secrets } from '../core/index.ts';

/** What one vault entry may hold: a credential, not a document. */
const SecretValueSchema = z
  .string()
  .min(1, 'a secret needs a value')
  .max(16 * 1024, 'a secret is at most 16 KiB');

/**
 * The browser's secrets port: credentials for the tools a tab runs in local mode, kept in
 * this browser's own IndexedDB database (apart from the journals, which never hold them) and
 * handed to tools by name at call time. Values are loaded once, so `get` is synchronous for
 * the run session; every value is registered with the redaction policy, so nothing the tab
 * shows or exports repeats it. Like any browser storage, it is as safe as the profile of the
 * browser it lives in: it keeps secrets out of journals and screens, not away from someone
 * who controls this browser.
 */
export class BrowserVault implements Secrets {
  readonly #values: Map<string, string>;
  readonly #db: IDBPDatabase;

  private constructor(db: IDBPDatabase, values: Map<string, string>) {
    this.#db = db;
    this.#values = values;
  }

  /** Open (or create) the vault database `name`. */
  static async open(name = 'cugar-vault'): Promise<BrowserVault> {
    const db = await openDB(name, 1, { upgrade: (upgrading) => void upgrading.createObjectStore('secrets') });
    const values = new Map<string, string>();
    let cursor = await db.transaction('secrets').store.openCursor();
    while (cursor) {
      const parsedName = SecretNameSchema.safeParse(cursor.key);
      const parsedValue = SecretValueSchema.safeParse(cursor.value);
      if (parsedName.success && parsedValue.success) values.set(parsedName.data, parsedValue.data);
      cursor = await cursor.continue();
    }
    registerSecretValues(values.values());
    return new BrowserVault(db, values);
  }

  names(): string[] {
    return [...this.#values.keys()].sort();
  }

  get(name: string): string | undefined {
    return this.#values.get(name);
  }

  /** Keep `value` under `name` (replacing any earlier value). Bad input is a `ValidationError` and changes nothing. */
  async set(name: string, value: string): Promise<void> {
    const validName = SecretNameSchema.safeParse(name);
    if (!validName.success) throw new ValidationError(validName.error.issues[0]?.message ?? 'invalid secret name', { code: 'invalid_secret_name' });
    const validValue = SecretValueSchema.safeParse(value);
    if (!validValue.success) throw new ValidationError(validValue.error.issues[0]?.message ?? 'invalid secret', { code: 'invalid_secret_value' });
    await this.#db.put('secrets', validValue.data, validName.data);
    registerSecretValues([validValue.data]);
    this.#values.set(validName.data, validValue.data);
  }

  /** Forget `name`. */
  async delete(name: string): Promise<void> {
    await this.#db.delete('secrets', name);
    this.#values.delete(name);
  }

  close(): void {
    this.#db.close();
  }
}
