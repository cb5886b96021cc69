export * from './definitions.js';
export * from './producers.js';
