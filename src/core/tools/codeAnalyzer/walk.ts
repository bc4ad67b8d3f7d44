/**
 * A small walker over Babel's AST, with no dependency on Babel's own traversal: every property
 * of a node that holds a node (an object with a string `type`) or an array of them is a child.
 */

/** The part of a Babel node the walker and the rules read; the rest is looked up by name. */
export interface AstNode {
  type: string;
  start?: number | null;
  end?: number | null;
  loc?: { start: { line: number; column: number } } | null;
  [key: string]: unknown;
}

/** Where a node sits: its parent, the parent's property holding it, and every ancestor (root first). */
export interface NodePath {
  readonly node: AstNode;
  readonly parent: AstNode | undefined;
  readonly key: string | undefined;
  readonly ancestors: readonly AstNode[];
}

const SKIPPED_KEYS = new Set([
  'type',
  'loc',
  'start',
  'end',
  'range',
  'extra',
  'leadingComments',
  'trailingComments',
  'innerComments',
  'comments',
  'tokens',
  'errors',
]);

/** Whether `value` looks like an AST node. */
export function isNode(value: unknown): value is AstNode {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

/**
 * Visit `root` and its descendants depth-first, in source order. `enter` may return `'skip'` to
 * leave a node's children out. Iterative, so deeply nested sources do not overflow the stack.
 */
export function walk(root: AstNode, enter: (path: NodePath) => void | 'skip'): void {
  type Frame = { node: AstNode; parent: AstNode | undefined; key: string | undefined; depth: number };
  const stack: Frame[] = [{ node: root, parent: undefined, key: undefined, depth: 0 }];
  const ancestors: AstNode[] = [];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    ancestors.length = frame.depth;
    if (enter({ node: frame.node, parent: frame.parent, key: frame.key, ancestors: ancestors.slice() }) === 'skip') continue;
    ancestors.push(frame.node);
    const children: Frame[] = [];
    for (const key of Object.keys(frame.node)) {
      if (SKIPPED_KEYS.has(key)) continue;
      const value = frame.node[key];
      if (Array.isArray(value)) {
        for (const item of value) if (isNode(item)) children.push({ node: item, parent: frame.node, key, depth: frame.depth + 1 });
      } else if (isNode(value)) children.push({ node: value, parent: frame.node, key, depth: frame.depth + 1 });
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
}

/** The static string a property key or expression always evaluates to (literals, `+` of them, plain templates), or `undefined`. */
export function staticString(node: unknown): string | undefined {
  if (!isNode(node)) return undefined;
  switch (node.type) {
    case 'StringLiteral':
      return node['value'] as string;
    case 'NumericLiteral':
      return String(node['value']);
    case 'TemplateLiteral': {
      const quasis = node['quasis'] as Array<{ value: { cooked?: string | null } }>;
      const expressions = node['expressions'] as unknown[];
      let text = quasis[0]?.value.cooked ?? '';
      for (let i = 0; i < expressions.length; i++) {
        const part = staticString(expressions[i]);
        if (part === undefined) return undefined;
        text += part + (quasis[i + 1]?.value.cooked ?? '');
      }
      return text;
    }
    case 'BinaryExpression': {
      if (node['operator'] !== '+') return undefined;
      const left = staticString(node['left']);
      const right = left === undefined ? undefined : staticString(node['right']);
      return left === undefined || right === undefined ? undefined : left + right;
    }
    case 'TSAsExpression':
    case 'TSNonNullExpression':
    case 'TSSatisfiesExpression':
      return staticString(node['expression']);
    default:
      return undefined;
  }
}

/** The name a member expression reads: `a.b` and `a['b']` give `b`; a computed key that is not static gives `undefined`. */
export function memberName(node: AstNode): string | undefined {
  const property = node['property'];
  if (!node['computed']) return isNode(property) && (property.type === 'Identifier' || property.type === 'PrivateName') ? identifierName(property) : undefined;
  return staticString(property);
}

function identifierName(node: AstNode): string | undefined {
  if (node.type === 'Identifier') return node['name'] as string;
  const id = node['id'];
  return isNode(id) ? (id['name'] as string) : undefined;
}

/**
 * Whether an `Identifier` at `path` reads a variable (as opposed to naming a property, a
 * declaration, a label or a type).
 */
export function isReference(path: NodePath): boolean {
  const { parent, key } = path;
  if (!parent || path.node.type !== 'Identifier') return false;
  switch (parent.type) {
    case 'MemberExpression':
    case 'OptionalMemberExpression':
      return key !== 'property' || parent['computed'] === true;
    case 'ObjectProperty':
      if (key === 'value' && path.ancestors[path.ancestors.length - 2]?.type === 'ObjectPattern') return false;
      return key !== 'key' || parent['computed'] === true;
    case 'ObjectMethod':
    case 'ClassMethod':
    case 'ClassPrivateMethod':
      return key === 'key' && parent['computed'] === true;
    case 'ClassProperty':
    case 'ClassAccessorProperty':
      return key !== 'key' || parent['computed'] === true;
    case 'VariableDeclarator':
      return key !== 'id';
    case 'FunctionDeclaration':
    case 'FunctionExpression':
    case 'ArrowFunctionExpression':
    case 'ObjectPattern':
    case 'ArrayPattern':
    case 'RestElement':
      return key === 'body' || key === 'value';
    case 'AssignmentPattern':
      return key === 'right';
    case 'ClassDeclaration':
    case 'ClassExpression':
      return key === 'superClass';
    case 'CatchClause':
    case 'LabeledStatement':
    case 'BreakStatement':
    case 'ContinueStatement':
    case 'ImportSpecifier':
    case 'ImportDefaultSpecifier':
    case 'ImportNamespaceSpecifier':
    case 'ExportSpecifier':
    case 'MetaProperty':
      return false;
    default:
      return !parent.type.startsWith('TS') || key === 'expression';
  }
}
