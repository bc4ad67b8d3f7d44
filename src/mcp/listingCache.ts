import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import type { McpToolListing } from './register.ts';

/** Where a host keeps each server's last listing, so its tools stay registered while it is away. */
export interface McpListingCache {
  read(server: string): McpToolListing[] | undefined;
  write(server: string, listing: readonly McpToolListing[]): void;
}

const ListingSchema = z.array(
  z.looseObject({
    name: z.string().min(1).max(128),
    description: z.string().optional(),
    title: z.string().optional(),
    inputSchema: z.unknown(),
    outputSchema: z.unknown().optional(),
  }),
);

/**
 * Listings as JSON files in `dir` (`<dir>/<server>.json`, written whole and renamed into
 * place). A file that is missing, unreadable or not a listing reads as none.
 */
export function fileListingCache(dir: string): McpListingCache {
  return {
    read(server) {
      try {
        const parsed = ListingSchema.safeParse(JSON.parse(readFileSync(join(dir, `${server}.json`), 'utf8')));
        return parsed.success ? (parsed.data as McpToolListing[]) : undefined;
      } catch {
        return undefined;
      }
    },
    write(server, listing) {
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `${server}.json`);
      writeFileSync(`${file}.tmp`, JSON.stringify(listing));
      renameSync(`${file}.tmp`, file);
    },
  };
}
