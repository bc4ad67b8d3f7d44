import { CugarError, type FailureMode } from '../errors.ts';

/**
 * Why the sandbox refused or stopped code:
 *
 * - `audit_failed`: the patch auditor refused the source (`details.findings` lists every finding).
 * - `syntax`: the source does not parse, or its realm refused to compile it.
 * - `bad_input`: the input is not a JSON value, or is larger than the limit.
 * - `bad_output`: the handler returned something that is not a JSON value, or too much of it.
 * - `timeout`: the call or the load ran past its time limit; the worker was terminated.
 * - `memory`: the worker ran out of its memory limit and was terminated.
 * - `network_denied`: the code reached for the network (a stripped global, a refused import).
 * - `handler_failed`: the handler threw; `message` is what it threw, as text.
 * - `crashed`: the worker died for another reason (it is recreated on the next call).
 * - `unsupported_host`: this host cannot run code that was not shipped with CUGAr (workerd).
 * - `closed`: the handle (or the sandbox) was closed.
 */
export type SandboxErrorCode =
  | 'audit_failed'
  | 'syntax'
  | 'bad_input'
  | 'bad_output'
  | 'timeout'
  | 'memory'
  | 'network_denied'
  | 'handler_failed'
  | 'crashed'
  | 'unsupported_host'
  | 'closed';

const MODES: Record<SandboxErrorCode, { failureMode: FailureMode; retryable: boolean }> = {
  audit_failed: { failureMode: 'POLICY', retryable: false },
  syntax: { failureMode: 'USER', retryable: false },
  bad_input: { failureMode: 'USER', retryable: false },
  bad_output: { failureMode: 'AGENT', retryable: false },
  timeout: { failureMode: 'RESOURCE', retryable: true },
  memory: { failureMode: 'RESOURCE', retryable: false },
  network_denied: { failureMode: 'POLICY', retryable: false },
  handler_failed: { failureMode: 'AGENT', retryable: false },
  crashed: { failureMode: 'AGENT', retryable: true },
  unsupported_host: { failureMode: 'SYSTEM', retryable: false },
  closed: { failureMode: 'SYSTEM', retryable: false },
};

/**
 * A failure of sandboxed code, or a refusal to run it. `code` says which (see
 * {@link SandboxErrorCode}); `failureMode` and `retryable` follow from it: a timeout is a
 * retryable `RESOURCE` failure, an audit refusal a `POLICY` one, a handler's throw an `AGENT` one.
 */
export class SandboxError extends CugarError {
  declare readonly code: SandboxErrorCode;
  constructor(code: SandboxErrorCode, message: string, options: { cause?: unknown; details?: unknown } = {}) {
    super(message, { code, ...MODES[code], ...options });
  }
}
