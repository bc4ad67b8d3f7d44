import { expect } from 'vitest';
import { SandboxError, type SandboxErrorCode } from '../../src/core/index.ts';

/** How a sandbox promise ended: `resolved`, or the code of the `SandboxError` it failed with (anything else fails the test). */
export async function codeOf(promise: Promise<unknown>): Promise<SandboxErrorCode | 'resolved'> {
  try {
    await promise;
    return 'resolved';
  } catch (error) {
    expect(error).toBeInstanceOf(SandboxError);
    return (error as SandboxError).code;
  }
}
