import { HANDLER_BINDING } from './realmScript.ts';
import { isNode, type AstNode } from '../tools/codeAnalyzer/walk.ts';

/** Why a module is not the shape of a tool, or where its handler is. */
export type ToolShape = { ok: true; export: AstNode; handlerName?: string; expression?: AstNode } | { ok: false; node: AstNode; message: string };

const FUNCTION_EXPRESSIONS = new Set(['FunctionExpression', 'ArrowFunctionExpression']);

/**
 * Find a tool's one export: `export default function …` (or an arrow or function expression),
 * `export [async] function handler(…)`, or `export const handler = <function>`. Nothing else may
 * be exported, and nothing imported.
 */
export function toolShape(program: AstNode): ToolShape {
  const body = program['body'] as AstNode[];
  const exports = body.filter((n) => n.type.startsWith('Export'));
  if (exports.length !== 1)
    return { ok: false, node: exports[1] ?? program, message: `a tool exports exactly one handler; this source has ${exports.length} exports` };
  const node = exports[0]!;
  const declaration = node['declaration'];
  if (node.type === 'ExportDefaultDeclaration' && isNode(declaration)) {
    if (declaration.type === 'FunctionDeclaration') {
      const id = declaration['id'];
      return isNode(id) ? { ok: true, export: node, handlerName: id['name'] as string } : { ok: true, export: node, expression: declaration };
    }
    if (FUNCTION_EXPRESSIONS.has(declaration.type)) return { ok: true, export: node, expression: declaration };
    return { ok: false, node, message: 'the default export must be a function' };
  }
  if (node.type === 'ExportNamedDeclaration' && isNode(declaration) && node['source'] == null) {
    if (declaration.type === 'FunctionDeclaration' && isNode(declaration['id']) && declaration['id']['name'] === 'handler')
      return { ok: true, export: node, handlerName: 'handler' };
    const declarators = declaration['declarations'] as AstNode[] | undefined;
    const only = declarators?.length === 1 ? declarators[0]! : undefined;
    if (
      declaration.type === 'VariableDeclaration' &&
      only &&
      isNode(only['id']) &&
      only['id']['name'] === 'handler' &&
      isNode(only['init']) &&
      FUNCTION_EXPRESSIONS.has(only['init'].type)
    )
      return { ok: true, export: node, handlerName: 'handler' };
  }
  return { ok: false, node, message: 'export a default function or a function named handler, and nothing else' };
}

/**
 * The factory a sandbox realm calls to get the handler: the module's text with its one `export`
 * turned into a binding, inside a strict function that returns the handler. Only for sources that
 * passed the audit (one export, no imports, no top-level `await` or `return`, no HTML comments),
 * so the text keeps its meaning as a script.
 */
export function toolFactory(source: string, shape: Extract<ToolShape, { ok: true }>): string {
  const start = shape.export.start ?? 0;
  const end = shape.export.end ?? source.length;
  const head = source.slice(0, start);
  const tail = source.slice(end);
  let body: string;
  if (shape.expression) {
    const expression = source.slice(shape.expression.start ?? 0, shape.expression.end ?? end);
    body = `${head}const ${HANDLER_BINDING} = (${expression});${tail}`;
  } else {
    const declaration = shape.export['declaration'] as AstNode;
    body = `${head}${source.slice(declaration.start ?? 0, end)}${tail}\n;const ${HANDLER_BINDING} = ${shape.handlerName};`;
  }
  return `(function () {\n'use strict';\n${body}\nreturn ${HANDLER_BINDING};\n})`;
}
