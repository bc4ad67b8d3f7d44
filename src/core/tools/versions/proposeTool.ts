import * as z from 'zod';
import type { RunInputs } from '../../schema/journalEvent.ts';
import { ToolNameSchema } from '../../schema/common.ts';
import type { ToolHandler } from '../tool.ts';
import type { ToolRegistry } from '../toolRegistry.ts';
import { MAX_TOOL_SOURCE_CHARS, ToolVersionMetaSchema, type ToolVersion, type ToolVersionProposalInput } from './toolVersion.ts';

/** The tool through which an agent proposes a tool (or a new version of one) during its run. */
export const PROPOSE_TOOL = 'propose_tool';

/** What proposing needs of the host: the tool versions of its profiles. */
export interface ToolProposals {
  propose(profile: string, name: string, input: ToolVersionProposalInput, by: string): Promise<ToolVersion>;
}

/** What `propose_tool` gives back to the model. */
export interface ProposedTool {
  name: string;
  hash: string;
  status: string;
  audit: { score: number; warnings: unknown[] };
  note: string;
}

const ProposeInputSchema = z.object({
  name: ToolNameSchema.describe('The tool’s name: lowercase letters, digits and "_"'),
  description: z.string().trim().min(1).max(2000).describe('What the tool does, for whoever calls it'),
  inputSchema: z.record(z.string(), z.unknown()).describe('The JSON Schema of its input: an object schema'),
  source: z
    .string()
    .min(1)
    .max(MAX_TOOL_SOURCE_CHARS)
    .describe('JavaScript with one default-exported function (input) => result; no network, files, processes or dynamic code'),
  meta: ToolVersionMetaSchema.partial().optional().describe('cost, latency (ms), capabilities, idempotent'),
});

/**
 * Put `propose_tool` into an agent run's own registry when its inputs allow proposals
 * (`agent.proposeTools`), so a proposal goes the way of a tool call: policy, schema, approval,
 * budget, retry and journal. The source is audited (a refusal lists every finding, and the model
 * can try again); one that passes waits for a person's approval in the tool versions (the
 * dashboard's tool editor, `POST …/versions/{hash}/approve`). The run cannot approve it, and it is
 * not callable in the run that proposed it: a run keeps the versions it started with, so an
 * approved version serves later runs. A profile with a tool of that name keeps its own.
 */
export function registerProposeTool(registry: ToolRegistry, inputs: RunInputs, handler: ToolHandler): void {
  if (!inputs.agent?.proposeTools || registry.has(inputs.profile, PROPOSE_TOOL)) return;
  registry.register(inputs.profile, PROPOSE_TOOL, {
    description:
      'Propose a new tool (or a new version of one) for this profile: its code is audited, then waits for a person to approve it. It is not callable in this run; later runs can use it once approved.',
    parameters: ProposeInputSchema,
    idempotent: true,
    handler,
  });
}

/** The proposal a `propose_tool` call makes, as `by` (the run that proposed it), and what goes back to the model. */
export async function proposeFromRun(
  proposals: ToolProposals,
  profile: string,
  runId: string,
  input: z.output<typeof ProposeInputSchema>,
): Promise<ProposedTool> {
  const { name, description, inputSchema, source, meta } = input;
  const version = await proposals.propose(profile, name, { source, description, inputSchema, ...(meta ? { meta } : {}) }, `run:${runId}`);
  return {
    name,
    hash: version.hash,
    status: version.status,
    audit: { score: version.score, warnings: version.warnings },
    note:
      version.status === 'proposed'
        ? 'The audit passed. A person must approve it before any run can call it; this run cannot.'
        : `This exact version is already ${version.status}; runs started from now on use the active version.`,
  };
}

/** The `propose_tool` input as it reaches {@link proposeFromRun}. */
export type ProposeToolInput = z.output<typeof ProposeInputSchema>;
