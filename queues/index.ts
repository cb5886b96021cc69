export * from './definitions.js';
export * from './producers.js';
export * from './connection.js';
