import * as z from 'zod';

/** A step output that carries files (the `microservice_builder` tool's): a name in its report, and the files. */
const GeneratedFilesSchema = z.object({
  files: z
    .array(
      z.object({
        path: z
          .string()
          .regex(/^[A-Za-z0-9._-][A-Za-z0-9._/-]{0,199}$/)
          .refine((path) => path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..')),
        content: z.string(),
      }),
    )
    .min(1)
    .max(64),
  report: z.looseObject({ service: z.string().max(64), ok: z.boolean() }),
});

const textUrl = (content: string, type: string) => `data:${type};charset=utf-8,${encodeURIComponent(content)}`;

/**
 * Download buttons for the files a run's steps generated: each file on its own, and all of them
 * as one JSON document (`{ service, files: [{ path, content }] }`). Renders nothing when no step
 * output has files.
 */
export function GeneratedFiles({ outputs }: { outputs: Record<string, unknown> }) {
  const sets = Object.entries(outputs).flatMap(([step, output]) => {
    const parsed = GeneratedFilesSchema.safeParse(output);
    return parsed.success ? [{ step, ...parsed.data }] : [];
  });
  if (sets.length === 0) return null;
  return (
    <>
      <h2>Generated files</h2>
      {sets.map(({ step, files, report }) => (
        <section key={step} aria-label={`Files of ${report.service}`}>
          <p>
            {report.service} (step {step}): {report.ok ? 'audit and smoke test passed' : 'audit or smoke test failed; see report.json'}
          </p>
          <ul>
            {files.map((file) => (
              <li key={file.path}>
                <a href={textUrl(file.content, 'text/plain')} download={`${report.service}-${file.path.replaceAll('/', '-')}`}>
                  Download {file.path}
                </a>
              </li>
            ))}
          </ul>
          <a
            className="button"
            href={textUrl(JSON.stringify({ service: report.service, files }, null, 2), 'application/json')}
            download={`${report.service}.files.json`}
          >
            Download all files (JSON)
          </a>
        </section>
      ))}
    </>
  );
}
