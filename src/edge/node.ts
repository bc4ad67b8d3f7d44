/**
 * `cugar/node`: what a Node process adds to the isomorphic core — the native SHA-256 the Node
 * host and the CLI hash journals with (checked against the core's own digest before use), and
 * the `worker_threads` sandbox they run code written at run time in.
 */
export { installNodeDigest } from './nodeDigest.ts';
export { createNodeSandbox } from './nodeSandbox.ts';
