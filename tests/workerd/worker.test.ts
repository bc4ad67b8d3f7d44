import { describeApiConformance } from '../support/apiConformance.ts';
import { startWorker } from './startWorker.ts';

// The same conformance suite as the Node host, against the Worker running in real workerd
// (through wrangler), with runs, the directory and profile memory in Durable Objects.
describeApiConformance('Cloudflare Worker in workerd', () => startWorker());
