import * as z from 'zod';
import { parseOrThrow } from '../schema/validate.ts';

/** The fields of an {@link ExecutionContext}. */
export const ExecutionContextSchema = z.object({
  traceId: z.string().min(1).max(200),
  runId: z.string().min(1).max(200),
  /** The same as `runId`: the seed's name for it. */
  requestId: z.string().min(1).max(200),
  userIntent: z.string(),
  profile: z.string().min(1),
  userId: z.string().max(200).optional(),
  memoryScope: z.string().max(200).optional(),
  conversationId: z.string().max(200).optional(),
  sessionId: z.string().max(200).optional(),
  parentContext: z.string().max(200).optional(),
});
export type ExecutionContextData = z.infer<typeof ExecutionContextSchema>;

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
