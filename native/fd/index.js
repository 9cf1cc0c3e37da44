'use strict';
// Loads the addon; a build that failed leaves both null: panes read their terminals on the
// daemon's main thread through node-pty, as they would without the reader thread, and the
// detector reads each pane's foreground group from procfs.
let addon = null;
try {
  addon = require('./build/Release/fd.node');
} catch {
  addon = null;
}
// An addon built before foregroundGroup existed lacks it: callers read procfs then.
module.exports = {
  dupFd: addon ? addon.dupFd : null,
  foregroundGroup: addon && addon.foregroundGroup ? addon.foregroundGroup : null,
  trimHeap: addon && addon.trimHeap ? addon.trimHeap : null,
};
