// Build-time stand-in for the `zod` that @hono/zod-openapi imports (see `narrowZodForOpenApi` in
// vite.config.ts). It hands zod's whole namespace to `extendZodWithOpenApi`, which only adds
// `.openapi()` to `ZodType.prototype`; passed as one object, the namespace would keep all of zod
// in the in-page runtime. CUGAr takes `z` from zod itself, never from @hono/zod-openapi.
import { ZodType } from 'zod';

export const z = { ZodType };
