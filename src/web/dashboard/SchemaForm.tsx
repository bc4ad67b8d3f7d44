// A form generated from a tool's JSON Schema (what `z.toJSONSchema` emits for tool inputs).
// Hand-written on purpose: tool inputs are flat objects of strings, numbers, integers,
// booleans and enums, and the general-purpose generators (react-jsonschema-form and the like)
// would add more to the dashboard's first load than the whole app weighs today. Anything this
// renderer does not model (nested objects, arrays, unions) gets a JSON field of its own, so
// every tool can still be called.
import { useId } from 'react';

export interface PropertySchema {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  default?: unknown;
}

export interface ObjectSchema {
  properties?: Record<string, PropertySchema>;
  required?: string[];
}

/** Form state: each field's raw text (or checkbox state), keyed by property name. */
export type FormState = Record<string, string | boolean>;

function kindOf(schema: PropertySchema): 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'json' {
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string')) return 'enum';
  const type = Array.isArray(schema.type) ? schema.type.filter((t) => t !== 'null') : [schema.type];
  if (type.length !== 1) return 'json';
  return type[0] === 'string' || type[0] === 'number' || type[0] === 'integer' || type[0] === 'boolean' ? type[0] : 'json';
}

/** Initial field values: the schema's defaults, else empty. */
export function initialFormState(schema: ObjectSchema): FormState {
  const state: FormState = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const kind = kindOf(property);
    if (kind === 'boolean') state[name] = property.default === true;
    else if (property.default !== undefined) state[name] = kind === 'json' ? JSON.stringify(property.default) : String(property.default);
    else state[name] = kind === 'enum' ? String(property.enum?.[0] ?? '') : '';
  }
  return state;
}

/** Turn the form into the tool's input; throws an Error naming the field that is wrong. */
export function formToInput(schema: ObjectSchema, state: FormState): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  const required = new Set(schema.required ?? []);
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const kind = kindOf(property);
    const raw = state[name];
    if (kind === 'boolean') {
      input[name] = raw === true;
      continue;
    }
    const text = typeof raw === 'string' ? raw : '';
    if (text === '' && kind !== 'string') {
      if (required.has(name)) throw new Error(`${name} is required`);
      continue;
    }
    if (kind === 'number' || kind === 'integer') {
      const value = Number(text);
      if (!Number.isFinite(value) || (kind === 'integer' && !Number.isInteger(value)))
        throw new Error(`${name} must be ${kind === 'integer' ? 'a whole number' : 'a number'}`);
      input[name] = value;
    } else if (kind === 'json') {
      try {
        input[name] = JSON.parse(text) as unknown;
      } catch {
        throw new Error(`${name} must be JSON`);
      }
    } else if (text !== '' || required.has(name)) {
      input[name] = text;
    }
  }
  return input;
}

/** Labelled inputs for each property of `schema`; required fields are marked and enforced. */
export function SchemaForm({ schema, state, onChange }: { schema: ObjectSchema; state: FormState; onChange: (state: FormState) => void }) {
  const prefix = useId();
  const required = new Set(schema.required ?? []);
  const entries = Object.entries(schema.properties ?? {});
  if (entries.length === 0) return <p className="hint">This tool takes no input.</p>;
  return (
    <div className="schema-form">
      {entries.map(([name, property]) => {
        const id = `${prefix}-${name}`;
        const kind = kindOf(property);
        const set = (value: string | boolean) => onChange({ ...state, [name]: value });
        const hint = property.description ? `${id}-hint` : undefined;
        const label = (
          <label htmlFor={id}>
            <code>{name}</code>
            {required.has(name) ? <span aria-hidden="true"> *</span> : null} <span className="hint">({kind === 'json' ? 'JSON' : kind})</span>
          </label>
        );
        return (
          <div key={name} className={kind === 'boolean' ? 'field inline' : 'field'}>
            {kind === 'boolean' ? (
              <>
                <input id={id} type="checkbox" checked={state[name] === true} onChange={(e) => set(e.target.checked)} aria-describedby={hint} />
                {label}
              </>
            ) : (
              <>
                {label}
                {kind === 'enum' ? (
                  <select id={id} value={String(state[name] ?? '')} onChange={(e) => set(e.target.value)} aria-describedby={hint} required={required.has(name)}>
                    {(property.enum as string[]).map((v) => (
                      <option key={v}>{v}</option>
                    ))}
                  </select>
                ) : kind === 'json' || (kind === 'string' && (property.maxLength ?? Infinity) > 200) ? (
                  <textarea
                    id={id}
                    rows={kind === 'json' ? 3 : 2}
                    value={String(state[name] ?? '')}
                    onChange={(e) => set(e.target.value)}
                    aria-describedby={hint}
                    required={required.has(name)}
                    {...(kind === 'string' && property.maxLength !== undefined ? { maxLength: property.maxLength } : {})}
                  />
                ) : (
                  <input
                    id={id}
                    type={kind === 'string' ? 'text' : 'number'}
                    {...(kind === 'integer' ? { step: 1 } : kind === 'number' ? { step: 'any' } : {})}
                    {...(property.minimum !== undefined ? { min: property.minimum } : {})}
                    {...(property.maximum !== undefined ? { max: property.maximum } : {})}
                    {...(property.maxLength !== undefined ? { maxLength: property.maxLength } : {})}
                    value={String(state[name] ?? '')}
                    onChange={(e) => set(e.target.value)}
                    aria-describedby={hint}
                    required={required.has(name)}
                  />
                )}
              </>
            )}
            {hint ? (
              <span id={hint} className="hint field-hint">
                {property.description}
              </span>
            ) : null}
          </div>
        );
      })}
    </div>
  );
}
