// The names of herdr 0.9.5's methods that methods.ts does not run: those tuios does not answer,
// and those whose mapping has not landed yet. Both answer `unsupported`.

/** Methods tuios does not answer, each for a reason (spec: What tuios does not answer). */
export const UNSUPPORTED = new Set([
  'workspace.move',
  'workspace.move_block',
  'layout.export',
  'layout.apply',
  'layout.set_split_ratio',
  'agent.view.set',
  'agent.view.clear',
  'pane.scroll',
  'pane.clear',
  'pane.edit_scrollback',
  'pane.selection.read',
  'pane.copy_motion',
  'pane.copy_search',
  'pane.input.set',
  'pane.link.activate',
  'pane.link.resolve',
  'command.invoke',
  'client_shell.surface.set',
  'integration.list',
  'integration.install',
  'integration.uninstall',
  'server.stop',
  'server.live_handoff',
  'server.ssh_agent.register',
  'server.reload_agent_manifests',
]);

/**
 * herdr 0.9.5's other methods, as the spec names them: tuios maps each, and until its mapping
 * lands here it answers `unsupported`, as a method tuios does not answer does.
 */
export const HERDR_METHODS = new Set([
  'popup.close',
]);
