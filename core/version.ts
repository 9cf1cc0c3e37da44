// The build's version, stamped by the bundler; `dev` when running from source under test.
declare const __TUIOS_VERSION__: string | undefined;

export const VERSION: string = typeof __TUIOS_VERSION__ === 'string' ? __TUIOS_VERSION__ : 'dev';

/** The verb protocol's version: bumped when a verb changes shape incompatibly. */
export const PROTOCOL_VERSION = 1;
