// The layer rules of DESIGN.md, checked by `npm test` (test/unit/layers.test.ts) with
// dependency-cruiser. Type-only imports count: a type cycle still ties two modules' changes
// together. Known violations are listed in .dependency-cruiser-known-violations.json, each a
// debt to pay, never a new one: a change that adds a violation fails the suite.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No cycles, type-only imports included: a cycle makes two modules one.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-imports-no-extension',
      severity: 'error',
      comment: 'core/ is the daemon and the CLI; the TUI, the links, the SSH server, herdr compatibility and the app that composes them are extensions built on it.',
      from: { path: '^core/' },
      to: { path: '^(tui|link|ssh-server|herdr|app|proto)/' },
    },
    {
      name: 'low-layers-import-nothing-above',
      severity: 'error',
      comment: 'The PTY, the emulator, the model, the bus, the store and the config are the bottom of the flow (PTY -> emulator -> detector -> store -> bus -> consumers): they import nothing above them.',
      from: { path: '^core/(pty|screen|model|store|config)/|^core/bus\\.ts$' },
      to: { path: '^core/(agent-state|detection|delivery|integrations|verbs|rpc|daemon|hosts|inbox|mail|git|security|cli)/' },
    },
    {
      name: 'proto-is-a-client',
      severity: 'error',
      comment: 'agent-proto (proto/) is a pane process that speaks to the daemon over its socket as any client does: it imports the client side of core, never the TUI, the links or the SSH server.',
      from: { path: '^proto/' },
      to: { path: '^(tui|link|ssh-server|herdr|app)/' },
    },
    {
      name: 'no-service-imports-a-verb',
      severity: 'error',
      comment: 'Verbs are the outside of the daemon: a service never imports a verb file (the daemon and the dispatcher register them).',
      from: { path: '^core/', pathNot: '^core/(verbs|daemon|cli)/' },
      to: { path: '^core/verbs/' },
    },
    {
      name: 'rpc-does-not-reach-into-hosts',
      severity: 'error',
      comment: 'The dispatcher is below the services it runs: it reaches them through Services, not by importing them.',
      from: { path: '^core/rpc/' },
      to: { path: '^core/(hosts|agent-state|detection|delivery|integrations|inbox|mail|git)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'state-store-is-below-the-flow',
      severity: 'error',
      comment: 'The agent state store holds what the sources claim; detection and the integrations feed it, delivery reads it. It imports none of them.',
      from: { path: '^core/agent-state/' },
      to: { path: '^core/(detection|delivery|integrations)/' },
    },
    {
      name: 'detection-feeds-the-store-only',
      severity: 'error',
      comment: 'Detection (identify, the detector loop, the screen tier, manifests, rules) reads panes and writes claims into the store; it never types into a pane and never runs a harness hook.',
      from: { path: '^core/detection/' },
      to: { path: '^core/(delivery|integrations)/' },
    },
    {
      name: 'nothing-below-imports-delivery',
      severity: 'error',
      comment: 'Prompt delivery (queue, typing, answering a prompt) reads the store and the rules; what is below it (the store, detection, the harness integrations, the low layers) never imports it.',
      from: { path: '^core/(agent-state|detection|integrations|pty|screen|model|store|config)/' },
      to: { path: '^core/delivery/' },
    },
    {
      name: 'the-flow-takes-narrow-dependencies',
      severity: 'error',
      comment: 'Detection, the state store, delivery, the harness integrations, the Inbox, mail, security and the low layers are built with the narrow interfaces they use, passed in: none of them takes the whole Services (the verbs and the composition root do).',
      from: { path: '^core/(agent-state|detection|delivery|integrations|inbox|mail|security|pty|screen|model|store|config)/|^core/bus\\.ts$' },
      to: { path: '^core/daemon/services\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|test|scripts|fixtures|native)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
    moduleSystems: ['es6', 'cjs'],
  },
};
