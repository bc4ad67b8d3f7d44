// Build-time stand-in for zod's locale index (see `englishOnlyZod` in vite.config.ts): the
// runtime's messages are English, and this keeps the other locales out of the bundles.
export { default as en } from 'zod/v4/locales/en.js';
