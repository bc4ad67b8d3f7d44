import { describe, expect, it } from 'vitest';
import { htmlToText } from '../../src/core/rag/extractText.ts';
import { reviveError } from '../../src/edge/errorRecord.ts';
import { CugarError } from '../../src/core/index.ts';

// Tables keyed by outside text must not find Object.prototype's members.
describe('lookups keyed by outside text', () => {
  it('leaves an HTML entity named like a prototype member as written', () => {
    expect(htmlToText('<p>a &constructor; b &toString; c &amp; d</p>')).toBe('a &constructor; b &toString; c & d');
  });

  it('revives an error record named like a prototype member as a plain CugarError', () => {
    const error = reviveError({ name: 'constructor', message: 'boom', code: 'x', retryable: false, failureMode: 'permanent' } as never);
    expect(error).toBeInstanceOf(CugarError);
    expect(error.message).toBe('boom');
  });
});
