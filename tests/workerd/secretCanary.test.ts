import { CANARY_TOKENS, KNOWN_SECRET, describeSecretCanary } from '../support/secretCanary.ts';
import { startWorker } from './startWorker.ts';

// The same placements and channels as on the Node host, through the Worker in workerd; the
// host secret is a Worker binding (`wrangler secret put CUGAR_SECRET_CANARY_KEY` in production).
describeSecretCanary('Cloudflare Worker in workerd', () => startWorker({ CUGAR_TOKENS: CANARY_TOKENS, CUGAR_SECRET_CANARY_KEY: KNOWN_SECRET }));
