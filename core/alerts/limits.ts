// Bounds of the alert policy (spec: Alerts). Config values are held between these.

/** The settle window by default: 0, an alert goes out as soon as its burst closes. */
export const ALERT_SETTLE_MS_DEFAULT = 0;
/** The longest settle window: a state held back longer than this is no longer an alert. */
export const ALERT_SETTLE_MS_MAX = 60_000;
/** The sound cooldown by default: one bell or cue per this many ms, however many bursts. */
export const ALERT_SOUND_COOLDOWN_MS_DEFAULT = 2_000;
export const ALERT_SOUND_COOLDOWN_MS_MAX = 3_600_000;
/** The text of one notification escape (after the `tuios: ` lead), in characters. */
export const ALERT_NOTIFY_TEXT_MAX = 180;
/** Alerts waiting out their settle window at once (one per pane or item); past it the oldest goes now. */
export const ALERT_SETTLING_MAX = 256;
/** A cue file path in config. */
export const ALERT_CUE_PATH_MAX = 4096;
/** How long a system audio player may play one cue before it is killed. */
export const ALERT_CUE_PLAY_MS = 10_000;
/**
 * A burst closes this long after its last arrival (at most the client's ALERT_BURST_MS after its
 * first): items that arrive together, as a fan's do, are one alert, and a lone one is not held
 * the whole burst window (the prompt-to-notification goal is 300 ms).
 */
export const ALERT_BURST_QUIET_MS = 60;
