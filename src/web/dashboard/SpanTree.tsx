import { duration } from './format.ts';
import type { Span, SpanNode } from './spans.ts';

/** Most spans the tree draws; beyond, the waterfall (virtualized) is the view. */
export const TREE_LIMIT = 3000;

function Item({ node, selected, onSelect }: { node: SpanNode; selected: Span | null; onSelect: (span: Span) => void }) {
  const { span, children } = node;
  const active = selected === span;
  return (
    <li>
      <button type="button" className={active ? 'tree-row active' : 'tree-row'} aria-pressed={active} onClick={() => onSelect(span)}>
        <i className={`bar ${span.kind}`} aria-hidden="true" /> {span.label} <span className="hint">{duration(span.end - span.start)}</span>
      </button>
      {children.length ? (
        <ul>
          {children.map((child) => (
            <Item key={child.span.seqs.join(',')} node={child} selected={selected} onSelect={onSelect} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

/** The run's spans nested: each stage with the steps, model calls, approvals and budget events inside it. */
export function SpanTree({ tree, selected, onSelect }: { tree: readonly SpanNode[]; selected: Span | null; onSelect: (span: Span) => void }) {
  return (
    // Nested lists of buttons, like the waterfall's rows (a tree widget would nest interactive roles).
    <ul className="span-tree" aria-label="Span tree">
      {tree.map((node) => (
        <Item key={node.span.seqs.join(',')} node={node} selected={selected} onSelect={onSelect} />
      ))}
    </ul>
  );
}
