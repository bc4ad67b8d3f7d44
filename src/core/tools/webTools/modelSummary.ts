import { toCugarError } from '../../errors.ts';
import type { ModelProvider } from '../../models/model.ts';
import { callModel } from '../../models/modelCall.ts';
import { classifyModelError } from '../../models/modelErrors.ts';

/** The model `internet_extract` asks for a summary: the host's provider and the id to ask (its first model). */
export interface SummaryModel {
  provider: ModelProvider;
  model: string;
  /** Longest wait for the answer, ms. Default 60 s. */
  timeoutMs?: number;
}

/** Most characters of a page the model is shown (the start of its main text). */
export const SUMMARY_INPUT_CHARS = 12_000;
/** Most tokens of the model's summary. */
export const SUMMARY_MAX_OUTPUT_TOKENS = 300;

/** How a page's summary was written: by the model, or extractively (and why the model's was not used). */
export type SummaryOutcome = { source: 'model'; model: string; summary: string } | { source: 'extractive'; model?: string; error?: string };

/**
 * Ask the model for a short summary of a page's main text (temperature 0, the first
 * {@link SUMMARY_INPUT_CHARS} characters, at most `sentences` sentences). Never throws: a failed,
 * timed-out or empty answer is reported with its typed error code, and the caller keeps the
 * extractive summary. The key never appears here: errors are reduced to their codes.
 */
export async function summarizeWithModel(
  summary: SummaryModel,
  page: { title: string; text: string },
  sentences: number,
  signal: AbortSignal,
  now: () => number,
): Promise<SummaryOutcome> {
  const { provider, model } = summary;
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => controller.abort(new Error('timeout')), summary.timeoutMs ?? 60_000);
  try {
    const answer = await callModel(
      provider.model(model),
      {
        prompt: [
          {
            role: 'system',
            content: `Summarise the web page the user gives you in at most ${sentences} plain sentences. Say only what the page says; no preamble, no lists.`,
          },
          { role: 'user', content: [{ type: 'text', text: `${page.title ? `Title: ${page.title}\n\n` : ''}${page.text.slice(0, SUMMARY_INPUT_CHARS)}` }] },
        ],
        temperature: 0,
        maxOutputTokens: SUMMARY_MAX_OUTPUT_TOKENS,
        abortSignal: controller.signal,
      },
      false,
    );
    const text = answer.text.replace(/\s+/g, ' ').trim();
    return text ? { source: 'model', model, summary: text } : { source: 'extractive', model, error: 'model_empty_answer' };
  } catch (thrown) {
    const code = controller.signal.aborted && !signal.aborted ? 'model_timeout' : toCugarError(classifyModelError(thrown, model, now())).code;
    return { source: 'extractive', model, error: code };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}
