import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/core/index.ts';
import { parseApprovalPolicy } from '../../src/api/approvalSettings.ts';

describe('approval settings from a host environment', () => {
  it('waits forever unless a timeout is set, and rejects on timeout by default', () => {
    expect(parseApprovalPolicy({})).toBeUndefined();
    expect(parseApprovalPolicy({ CUGAR_APPROVAL_TIMEOUT_MS: '', CUGAR_APPROVAL_ON_TIMEOUT: '' })).toBeUndefined();
    expect(parseApprovalPolicy({ CUGAR_APPROVAL_TIMEOUT_MS: '60000' })).toEqual({ timeoutMs: 60_000 });
    expect(parseApprovalPolicy({ CUGAR_APPROVAL_TIMEOUT_MS: '5', CUGAR_APPROVAL_ON_TIMEOUT: 'approve' })).toEqual({ timeoutMs: 5, onTimeout: 'approve' });
  });

  it('names the bad value', () => {
    for (const env of [
      { CUGAR_APPROVAL_TIMEOUT_MS: 'soon' },
      { CUGAR_APPROVAL_TIMEOUT_MS: '-1' },
      { CUGAR_APPROVAL_TIMEOUT_MS: '10', CUGAR_APPROVAL_ON_TIMEOUT: 'maybe' },
    ]) {
      expect(() => parseApprovalPolicy(env)).toThrow(ValidationError);
    }
    expect(() => parseApprovalPolicy({ CUGAR_APPROVAL_ON_TIMEOUT: 'maybe', CUGAR_APPROVAL_TIMEOUT_MS: '10' })).toThrow(/CUGAR_APPROVAL_ON_TIMEOUT/);
  });
});
