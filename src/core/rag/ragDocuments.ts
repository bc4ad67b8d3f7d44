import { NotFoundError } from '../errors.ts';
import { ProfileNameSchema } from '../schema/common.ts';
import { parseOrThrow } from '../schema/validate.ts';
import type { RagIndex } from './ragIndex.ts';

/** An ingested document as its chunks make it up. */
export interface DocumentInfo {
  path: string;
  chunks: number;
  /** Characters of its extracted text, over all its chunks. */
  characters: number;
}

/** A text kept in memory for semantic recall (by `remember`, or a tool that stores what it read). */
export interface NoteInfo {
  id: string;
  text: string;
  /** What kept it (`remember`, `internet_extract`, …), when it says. */
  source?: string;
  timestamp?: string;
  traceId?: string;
}

/**
 * What a profile's vector backend holds, seen as people think of it: the documents ingested
 * (chunks grouped by path) and the notes kept in memory (records without a path). Deleting a
 * document removes every chunk of it from the vectors and from the keyword index; neither
 * touches a run's journal, which keeps what its calls read.
 */
export class RagDocuments {
  readonly #index: RagIndex;

  constructor(index: RagIndex) {
    this.#index = index;
  }

  /** The profile's documents, by path. */
  async list(profile: string): Promise<DocumentInfo[]> {
    parseOrThrow(ProfileNameSchema, profile, 'profile', 'invalid_profile');
    const documents = new Map<string, DocumentInfo>();
    for (const record of await this.#index.backend.list(profile)) {
      const path = record.metadata?.['path'];
      if (typeof path !== 'string') continue;
      const text = record.metadata?.['text'];
      const entry = documents.get(path) ?? { path, chunks: 0, characters: 0 };
      entry.chunks++;
      entry.characters += typeof text === 'string' ? text.length : 0;
      documents.set(path, entry);
    }
    return [...documents.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** Delete every chunk of the document at `path`; an unknown path is a `NotFoundError` (`unknown_document`). */
  async remove(profile: string, path: string): Promise<{ path: string; chunks: number }> {
    parseOrThrow(ProfileNameSchema, profile, 'profile', 'invalid_profile');
    const ids = (await this.#index.backend.list(profile)).filter((record) => record.metadata?.['path'] === path).map((record) => record.id);
    if (ids.length === 0) throw new NotFoundError(`profile ${profile} has no document ${path}`, { code: 'unknown_document', details: { path } });
    const keywords = await this.#index.keywords(profile);
    await this.#index.writing(profile, async () => {
      await this.#index.backend.delete(profile, ids);
      keywords.delete(ids);
    });
    return { path, chunks: ids.length };
  }

  /** The profile's notes (kept by `remember` or by tools that store what they read), newest first (at most `limit`). */
  async notes(profile: string, options: { limit?: number } = {}): Promise<NoteInfo[]> {
    parseOrThrow(ProfileNameSchema, profile, 'profile', 'invalid_profile');
    const notes: NoteInfo[] = [];
    for (const record of await this.#index.backend.list(profile)) {
      const metadata = record.metadata ?? {};
      // Runs' reflections are memory of their own (the `reflection` facts), not notes a person kept.
      if (metadata['path'] !== undefined || metadata['namespace'] === 'reflection' || typeof metadata['text'] !== 'string') continue;
      const { source, timestamp, traceId } = metadata;
      notes.push({
        id: record.id,
        text: metadata['text'],
        ...(typeof source === 'string' ? { source } : {}),
        ...(typeof timestamp === 'string' ? { timestamp } : {}),
        ...(typeof traceId === 'string' ? { traceId } : {}),
      });
    }
    notes.sort((a, b) => (b.timestamp ?? '').localeCompare(a.timestamp ?? '') || (a.id < b.id ? -1 : 1));
    return notes.slice(0, options.limit ?? 100);
  }

  /** Delete the note `id`; an unknown id (or a document's chunk) is a `NotFoundError` (`unknown_note`). */
  async removeNote(profile: string, id: string): Promise<{ id: string }> {
    parseOrThrow(ProfileNameSchema, profile, 'profile', 'invalid_profile');
    const record = (await this.#index.backend.list(profile)).find((r) => r.id === id);
    if (!record || record.metadata?.['path'] !== undefined)
      throw new NotFoundError(`profile ${profile} has no note ${id}`, { code: 'unknown_note', details: { id } });
    await this.#index.backend.delete(profile, [id]);
    return { id };
  }
}
