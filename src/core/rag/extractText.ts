import { ValidationError } from '../errors.ts';
import { lookupTable } from '../lookupTable.ts';

/** Largest document accepted, in UTF-16 code units (about 10 MB of text). */
export const MAX_DOCUMENT_CHARS = 10 * 1024 * 1024;

/** The document formats ingest understands, by extension. */
export const DOCUMENT_EXTENSIONS = ['.txt', '.md', '.markdown', '.html', '.htm', '.json'] as const;

const ENTITIES: Readonly<Record<string, string>> = lookupTable({
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  eacute: 'é',
  egrave: 'è',
  ecirc: 'ê',
  agrave: 'à',
  aacute: 'á',
  ccedil: 'ç',
  ouml: 'ö',
  uuml: 'ü',
  auml: 'ä',
  szlig: 'ß',
  ntilde: 'ñ',
  oacute: 'ó',
  iacute: 'í',
  uacute: 'ú',
  euro: '€',
  pound: '£',
  deg: '°',
  middot: '·',
  bull: '•',
});

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (match, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match;
    }
    return ENTITIES[body.toLowerCase()] ?? match;
  });
}

/**
 * The readable text of an HTML document, without a DOM: scripts, styles, comments and tags
 * removed, block elements turned into paragraph breaks, entities decoded. Written by hand
 * because the core must run where no DOM parser exists (workers, Node) and only needs text.
 */
export function htmlToText(html: string): string {
  return decodeEntities(
    html
      .replace(/<!--[\s\S]*?-->/g, ' ')
      .replace(/<(script|style|noscript|template|svg|head)\b[\s\S]*?<\/\1\s*>/gi, ' ')
      .replace(/<(br|hr)\b[^>]*>/gi, '\n')
      .replace(/<\/?(p|div|section|article|header|footer|main|nav|aside|h[1-6]|li|ul|ol|table|tr|blockquote|pre|figure|figcaption|dl|dt|dd)\b[^>]*>/gi, '\n\n')
      .replace(/<\/?(td|th)\b[^>]*>/gi, ' ')
      .replace(/<[^>]+>/g, ' '),
  )
    .replace(/[ \t\f\v\r]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The text of a JSON document: every string value, with its key path, one paragraph each. */
function jsonToText(json: string): string {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (cause) {
    throw new ValidationError('the JSON document does not parse', { code: 'invalid_document', cause });
  }
  const lines: string[] = [];
  const walk = (node: unknown, path: string) => {
    if (typeof node === 'string') lines.push(path ? `${path}: ${node}` : node);
    else if (typeof node === 'number' || typeof node === 'boolean') lines.push(`${path}: ${String(node)}`);
    else if (Array.isArray(node)) node.forEach((item, i) => walk(item, `${path}[${i}]`));
    else if (node && typeof node === 'object') for (const [key, item] of Object.entries(node)) walk(item, path ? `${path}.${key}` : key);
  };
  walk(value, '');
  return lines.join('\n\n');
}

/** Whether text looks binary: NUL characters, or many control characters. */
function looksBinary(text: string): boolean {
  const sample = text.length > 8192 ? text.slice(0, 8192) : text;
  let control = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    if (c === 0) return true;
    if ((c < 32 && c !== 9 && c !== 10 && c !== 13) || c === 0xfffd) control++;
  }
  return sample.length > 0 && control / sample.length > 0.1;
}

/**
 * The plain text of a document by its extension (`.txt`, `.md`, `.html`, `.json`).
 * Empty, binary, oversized and unsupported documents are refused with a `ValidationError`.
 */
export function extractText(path: string, content: string): string {
  if (typeof path !== 'string' || path.trim() === '' || path.length > 1024)
    throw new ValidationError('a document needs a path of 1-1024 characters', { code: 'invalid_path' });
  if (typeof content !== 'string') throw new ValidationError(`${path}: content must be text`, { code: 'invalid_document' });
  if (content.length > MAX_DOCUMENT_CHARS)
    throw new ValidationError(`${path} is larger than ${MAX_DOCUMENT_CHARS / 1024 / 1024} MB`, {
      code: 'document_too_large',
      details: { path, size: content.length },
    });
  if (looksBinary(content)) throw new ValidationError(`${path} looks like a binary file`, { code: 'binary_document', details: { path } });
  const extension = path.toLowerCase().match(/\.[a-z0-9]+$/)?.[0] ?? '.txt';
  if (!(DOCUMENT_EXTENSIONS as readonly string[]).includes(extension)) {
    throw new ValidationError(`${path}: unsupported document type ${extension}; use ${DOCUMENT_EXTENSIONS.join(', ')}`, {
      code: 'unsupported_document',
      details: { path },
    });
  }
  const text =
    extension === '.html' || extension === '.htm' ? htmlToText(content) : extension === '.json' ? jsonToText(content) : content.replace(/\r\n?/g, '\n').trim();
  if (!/[\p{L}\p{N}]/u.test(text)) throw new ValidationError(`${path} has no text`, { code: 'empty_document', details: { path } });
  return text;
}
