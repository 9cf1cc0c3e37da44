'use strict';
// Loads the addon; a build that failed leaves `getPeerCred` null and the daemon treats every
// caller's pid as unknown (which placement reads as "inside a pane": the safe side).
let addon = null;
try {
  addon = require('./build/Release/peercred.node');
} catch {
  addon = null;
}
module.exports = { getPeerCred: addon ? addon.getPeerCred : null };
