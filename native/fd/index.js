'use strict';
// Loads the addon; a build that failed leaves `dupFd` null, and panes read their terminals on
// the daemon's main thread through node-pty, as they would without the reader thread.
let addon = null;
try {
  addon = require('./build/Release/fd.node');
} catch {
  addon = null;
}
module.exports = { dupFd: addon ? addon.dupFd : null };
