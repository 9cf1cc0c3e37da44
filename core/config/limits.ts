// Bounds of what get-config and set-config take.

/** A dotted config key. */
export const CONFIG_KEY_MAX = 200;
/** A value typed for set-config. */
export const CONFIG_VALUE_MAX = 4096;
/** Items of a list value (comma separated). */
export const CONFIG_LIST_MAX = 64;
