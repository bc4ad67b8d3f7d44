import { FUNCTIONS } from './structure.ts';
import { isReference, walk, type AstNode, type NodePath } from './walk.ts';

const BLOCKS = new Set(['BlockStatement', 'Program', 'ForStatement', 'ForInStatement', 'ForOfStatement', 'SwitchStatement', 'StaticBlock']);
const CLASSES = new Set(['ClassDeclaration', 'ClassExpression']);

/** Whether an `Identifier` at `path` declares a binding (a variable, parameter, function, class, catch or import name). */
export function declaresBinding(path: NodePath): boolean {
  const { parent, key } = path;
  if (!parent || path.node.type !== 'Identifier' || isReference(path)) return false;
  if (parent.type === 'MemberExpression' || parent.type === 'OptionalMemberExpression' || parent.type === 'LabeledStatement') return false;
  if (parent.type.startsWith('Break') || parent.type.startsWith('Continue') || parent.type === 'MetaProperty' || parent.type === 'ExportSpecifier')
    return false;
  if ((parent.type === 'ObjectProperty' || parent.type === 'ObjectMethod' || parent.type.startsWith('Class')) && key === 'key') return false;
  if (parent.type === 'ImportSpecifier' && key === 'imported') return false;
  return !parent.type.startsWith('TS');
}

/** The node whose scope a declaring identifier's binding lives in. */
function scopeOf(path: NodePath): AstNode | undefined {
  const chain = path.ancestors;
  const nearest = (from: number, kinds: (type: string) => boolean) => {
    for (let j = from; j >= 0; j--) if (kinds(chain[j]!.type)) return chain[j];
    return chain[0];
  };
  for (let i = chain.length - 1; i >= 0; i--) {
    const node = chain[i]!;
    const child = i === chain.length - 1 ? path.node : chain[i + 1]!;
    if (node.type === 'VariableDeclarator') {
      const declaration = chain[i - 1];
      const kind = declaration?.['kind'];
      return kind === 'var' ? nearest(i - 2, (t) => FUNCTIONS.has(t) || t === 'Program') : nearest(i - 2, (t) => BLOCKS.has(t) || FUNCTIONS.has(t));
    }
    if (FUNCTIONS.has(node.type) || CLASSES.has(node.type)) {
      const isName = node['id'] === child || node['key'] === child;
      if (!isName) return node;
      return node.type === 'FunctionDeclaration' || node.type === 'ClassDeclaration' ? nearest(i - 1, (t) => BLOCKS.has(t) || FUNCTIONS.has(t)) : node;
    }
    if (node.type === 'CatchClause') return node;
    if (node.type.startsWith('Import')) return chain[0];
  }
  return chain[0];
}

/**
 * Where each name is declared in a program: `isLocal(name, path)` says whether a reference at
 * `path` reads a binding of the source (a variable, parameter, function, class, catch or import)
 * rather than a global. Scopes follow the language: `var` and parameters to their function,
 * `let`, `const`, classes and function declarations to their block.
 */
export function collectScopes(file: AstNode): { isLocal(name: string, path: NodePath): boolean } {
  const declared = new Map<AstNode, Set<string>>();
  walk(file, (path) => {
    if (!declaresBinding(path)) return;
    const scope = scopeOf(path);
    if (!scope) return;
    let names = declared.get(scope);
    if (!names) declared.set(scope, (names = new Set()));
    names.add(path.node['name'] as string);
  });
  return {
    isLocal(name, path) {
      for (let i = path.ancestors.length - 1; i >= 0; i--) if (declared.get(path.ancestors[i]!)?.has(name)) return true;
      return false;
    },
  };
}
