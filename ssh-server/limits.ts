// Every budget and delay the SSH server keeps, each with the reason for its number. The person's
// own limits (max_sessions, max_auth_tries, idle_timeout) are in config.toml's [ssh] table.

/** A connection that has not authenticated by then is closed (OpenSSH's LoginGraceTime is 120 s):
 *  a client that connects and says nothing never holds one of max_sessions for long. */
export const LOGIN_GRACE_MS = 60_000;
/** The longest the loop is held at a time while looking for a local client's socket (the reads
 *  are synchronous in slices: far cheaper than a promise per fd). */
export const PEER_SCAN_SLICE_MS = 4;
/** Looking for a local client's process gives up after this long, and the client counts as
 *  inside a pane (no evidence is not proof of the person). A scan of a few hundred processes
 *  takes tens of milliseconds. */
export const PEER_SCAN_MS = 3_000;
/** TERM from a pty-req, at most (terminfo names are short; anything longer is not one). */
export const MAX_TERM_LENGTH = 64;
/** An exec command line, at most: a verb and its flags, not a script. */
export const MAX_EXEC_COMMAND = 64 * 1024;
/** Session channels one connection may hold open (sshd's MaxSessions default): each shell is a
 *  TUI, so one client cannot open hundreds of them past max_sessions. */
export const MAX_CHANNELS_PER_CONNECTION = 10;
/** An authorized_keys file, at most (sshd has no limit; a thousand keys is 600 KB): a larger one is
 *  not read, so a login never parses megabytes. */
export const MAX_AUTHORIZED_KEYS_BYTES = 1024 * 1024;
/** A username from the client, as far as it is logged. */
export const MAX_USERNAME_LOGGED = 64;
/** Random bytes drawn at a time for packet padding (padding.ts): 4 to 35 bytes a packet, so one
 *  draw pads a few hundred packets. */
export const PADDING_POOL_BYTES = 4096;
/** A TCP connection that has not finished its key exchange by then is dropped: a client that
 *  connects and sends no banner (or stalls in the exchange) is never served, and ssh2 itself
 *  would hold it for ever. OpenSSH's own client finishes in a few milliseconds on loopback. */
export const HANDSHAKE_TIMEOUT_MS = 10_000;
/** Connections not yet logged in at once, at most (OpenSSH's MaxStartups drops them all at 100):
 *  past it a new one is closed at once. Each holds a descriptor and ssh2's buffers until
 *  HANDSHAKE_TIMEOUT_MS or LOGIN_GRACE_MS, so this bounds what a flood of silent connections
 *  costs; max_sessions counts logins only, so such a flood does not keep a real client out. */
export const MAX_LOGGING_IN = 256;
