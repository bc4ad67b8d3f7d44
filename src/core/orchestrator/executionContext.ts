import { ExecutionContextSchema, type ExecutionContextData } from '../schema/context.ts';
import { parseOrThrow } from '../schema/validate.ts';

type Optional = 'userId' | 'memoryScope' | 'conversationId' | 'sessionId' | 'parentContext';

/**
 * The immutable context of one run. Every `with…()` returns a new, frozen copy; nothing
 * ever changes a context in place, so stages can share one safely.
 *
 * @example
 * const child = context.withUserId('ada').withSessionId('s1'); // context is unchanged
 */
export class ExecutionContext implements Readonly<ExecutionContextData> {
  readonly traceId!: string;
  readonly runId!: string;
  readonly requestId!: string;
  readonly userIntent!: string;
  readonly profile!: string;
  readonly userId?: string;
  readonly memoryScope?: string;
  readonly conversationId?: string;
  readonly sessionId?: string;
  readonly parentContext?: string;

  constructor(data: ExecutionContextData) {
    Object.assign(this, parseOrThrow(ExecutionContextSchema, data, 'execution context'));
    Object.freeze(this);
  }

  /** A plain-data copy (what the journal stores). */
  toJSON(): ExecutionContextData {
    const { traceId, runId, requestId, userIntent, profile, userId, memoryScope, conversationId, sessionId, parentContext } = this;
    return { traceId, runId, requestId, userIntent, profile, userId, memoryScope, conversationId, sessionId, parentContext };
  }

  #with(patch: Partial<ExecutionContextData>): ExecutionContext {
    return new ExecutionContext({ ...this.toJSON(), ...patch });
  }

  withTraceId(traceId: string): ExecutionContext {
    return this.#with({ traceId });
  }
  withProfile(profile: string): ExecutionContext {
    return this.#with({ profile });
  }
  withUserIntent(userIntent: string): ExecutionContext {
    return this.#with({ userIntent });
  }
  withUserId(userId: string): ExecutionContext {
    return this.#with({ userId });
  }
  withMemoryScope(memoryScope: string): ExecutionContext {
    return this.#with({ memoryScope });
  }
  withConversationId(conversationId: string): ExecutionContext {
    return this.#with({ conversationId });
  }
  withSessionId(sessionId: string): ExecutionContext {
    return this.#with({ sessionId });
  }
  /** A child context for a sub-run: new run id, this run as its parent, same trace. */
  withParent(runId: string): ExecutionContext {
    return this.#with({ runId, requestId: runId, parentContext: this.runId });
  }
  /** Drop an optional field. */
  without(field: Optional): ExecutionContext {
    const data = this.toJSON();
    delete data[field];
    return new ExecutionContext(data);
  }
}
