import { ValidationError } from '../errors.ts';
import { parseOrThrow } from '../schema/validate.ts';
import { RecordIdSchema, type VectorRecord } from './vectorBackend.ts';

/** Metadata of records stored without any: one shared object instead of one per row. */
const NO_METADATA: Record<string, unknown> = Object.freeze({});

/** A stored copy of a record's metadata. */
export function storedMetadata(metadata: Record<string, unknown> | undefined): Record<string, unknown> {
  if (metadata === undefined) return NO_METADATA;
  for (const key in metadata) if (Object.hasOwn(metadata, key)) return { ...metadata };
  return NO_METADATA;
}

/** Check a record against `dimension` without storing it; throws a `ValidationError`. */
export function validateRecord(record: VectorRecord, dimension: number): void {
  parseOrThrow(RecordIdSchema, record.id, 'record id', 'invalid_record_id');
  if (!(record.vector instanceof Float32Array)) throw new ValidationError(`record ${record.id}: vector must be a Float32Array`, { code: 'invalid_vector' });
  if (record.vector.length !== dimension) {
    throw new ValidationError(`record ${record.id}: vector has ${record.vector.length} dimensions, expected ${dimension}`, {
      code: 'dimension_mismatch',
    });
  }
  for (let i = 0; i < record.vector.length; i++) {
    if (!Number.isFinite(record.vector[i]!))
      throw new ValidationError(`record ${record.id}: vector has a non-finite value at ${i}`, { code: 'non_finite_vector' });
  }
}
