import * as z from 'zod';

const Ceiling = z.number().min(0, 'ceilings are not negative').max(Number.MAX_SAFE_INTEGER, 'ceilings are finite');

/** Spending limits of a run or a profile. An absent ceiling is no limit. */
export const ToolBudgetSchema = z.object({
  costCeiling: Ceiling.optional(),
  callCeiling: Ceiling.int().optional(),
  tokenCeiling: Ceiling.int().optional(),
  /** Fraction of a ceiling at which `budget_warning` is raised. Default 0.8. */
  warnThreshold: z.number().min(0).max(1).default(0.8),
});
export type ToolBudget = z.output<typeof ToolBudgetSchema>;
export type ToolBudgetInput = z.input<typeof ToolBudgetSchema>;

/** What has been spent (or is about to be). */
export const BudgetUsageSchema = z.object({ cost: z.number(), calls: z.number(), tokens: z.number() });
export type BudgetUsage = z.output<typeof BudgetUsageSchema>;
