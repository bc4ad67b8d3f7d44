import { ValidationError } from '../errors.ts';
import { pause } from '../ports.ts';
import type { ApprovalPolicy } from './options.ts';

/** A retry delay: ends early, without an error, when the run is cancelled. */
export function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return pause(ms, signal).catch(() => undefined);
}

/** The approval settings every run records, checked. */
export function approvalSettings(policy: ApprovalPolicy | undefined): { onTimeout: 'approve' | 'reject'; timeoutMs?: number } {
  const timeoutMs = policy?.timeoutMs;
  if (timeoutMs !== undefined && !(timeoutMs >= 0 && Number.isFinite(timeoutMs))) {
    throw new ValidationError('approval timeoutMs must be a finite number ≥ 0', { code: 'invalid_approval_policy' });
  }
  return { onTimeout: policy?.onTimeout ?? 'reject', ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
}

/** `value` without its undefined and empty-string entries. */
export function definedOnly<T extends Record<string, unknown>>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== '')) as { [K in keyof T]: Exclude<T[K], undefined> };
}
