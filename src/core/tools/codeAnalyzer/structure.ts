import { findingAt, type Finding } from './finding.ts';
import { isNode, walk, type AstNode, type NodePath } from './walk.ts';

const LOOPS = new Set(['WhileStatement', 'DoWhileStatement', 'ForStatement', 'ForInStatement', 'ForOfStatement']);
/** Nodes that start a function body: a `return` inside one does not leave the enclosing loop. */
export const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression', 'ObjectMethod', 'ClassMethod', 'ClassPrivateMethod']);
const DECISIONS = new Set([
  'IfStatement',
  'ConditionalExpression',
  'ForStatement',
  'ForInStatement',
  'ForOfStatement',
  'WhileStatement',
  'DoWhileStatement',
  'CatchClause',
]);

/** Whether a loop's test is always true (`true`, `1`, `'x'`, `!0`) or missing (`for (;;)`). */
function alwaysTrue(test: unknown): boolean {
  if (test === null || test === undefined) return true;
  if (!isNode(test)) return false;
  if (test.type === 'BooleanLiteral') return test['value'] === true;
  if (test.type === 'NumericLiteral') return test['value'] !== 0;
  if (test.type === 'StringLiteral') return test['value'] !== '';
  if (test.type === 'UnaryExpression' && test['operator'] === '!') {
    const argument = test['argument'];
    return (
      isNode(argument) &&
      ((argument.type === 'NumericLiteral' && argument['value'] === 0) || (argument.type === 'BooleanLiteral' && argument['value'] === false))
    );
  }
  return false;
}

/** Whether anything in a loop's body can leave it: a `break` aimed at it, `return`, `throw` or `yield`. */
function loopExits(body: AstNode): boolean {
  let exits = false;
  walk(body, ({ node, ancestors }) => {
    if (exits || FUNCTIONS.has(node.type)) return 'skip';
    if (node.type === 'ReturnStatement' || node.type === 'ThrowStatement' || node.type === 'YieldExpression') exits = true;
    if (node.type === 'BreakStatement') {
      const label = node['label'];
      if (isNode(label)) {
        const name = label['name'];
        exits = !ancestors.some((a) => a.type === 'LabeledStatement' && isNode(a['label']) && a['label']['name'] === name);
      } else exits = !ancestors.some((a) => LOOPS.has(a.type) || a.type === 'SwitchStatement');
    }
    return undefined;
  });
  return exits;
}

/** An `unbounded_loop` finding for a loop whose test is always true and that nothing in its body leaves. */
export function loopFinding(node: AstNode): Finding | undefined {
  if (node.type !== 'WhileStatement' && node.type !== 'DoWhileStatement' && node.type !== 'ForStatement') return undefined;
  if (!alwaysTrue(node['test'])) return undefined;
  const body = node['body'];
  if (isNode(body) && loopExits(body)) return undefined;
  return findingAt(node, 'unbounded_loop', 'high', 'a loop whose condition is always true and that nothing in its body leaves');
}

/** The node a decision point counts against: the nearest enclosing function, or the program. */
export function complexityOwner(path: NodePath): AstNode | undefined {
  const node = path.node;
  const counts =
    DECISIONS.has(node.type) ||
    (node.type === 'SwitchCase' && node['test'] !== null) ||
    (node.type === 'LogicalExpression' && ['&&', '||', '??'].includes(node['operator'] as string));
  if (!counts) return undefined;
  for (let i = path.ancestors.length - 1; i >= 0; i--) {
    const ancestor = path.ancestors[i]!;
    if (FUNCTIONS.has(ancestor.type) || ancestor.type === 'Program') return ancestor;
  }
  return undefined;
}
