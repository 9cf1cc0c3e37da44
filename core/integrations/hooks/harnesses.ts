// The harnesses `tuios agent-hook` reads, and the names every harness tuios recognises answers to
// (for the TUIOS_AGENT filter). Static on purpose: the hook runs on every event of every agent and
// must not load and parse the manifests to learn a name. A test checks this table against them.

export interface HookHarness {
  /** The manifest id. */
  id: string;
  /** Names `tuios agent-hook NAME` accepts for it. */
  names: string[];
  /** What its integration reports: the pane's state, or only its conversation id. */
  reports: 'state' | 'session';
  /** The harness parses the hook's stdout as JSON: it gets `{}` when there is no answer. */
  stdoutJson: boolean;
  /** SessionStart prints the context lines, which the harness adds to the agent's context. */
  contextLines: boolean;
}

export const HOOK_HARNESSES: HookHarness[] = [
  { id: 'claude-code', names: ['claude-code', 'claude'], reports: 'state', stdoutJson: false, contextLines: true },
  { id: 'codex', names: ['codex'], reports: 'state', stdoutJson: false, contextLines: true },
  { id: 'gemini-cli', names: ['gemini-cli', 'gemini'], reports: 'state', stdoutJson: true, contextLines: false },
  { id: 'opencode', names: ['opencode', 'opencode-ai'], reports: 'state', stdoutJson: false, contextLines: false },
  { id: 'kilo', names: ['kilo', 'kilocode'], reports: 'state', stdoutJson: false, contextLines: false },
  { id: 'qwen', names: ['qwen', 'qwen-code'], reports: 'state', stdoutJson: false, contextLines: false },
  { id: 'copilot', names: ['copilot', 'github-copilot'], reports: 'state', stdoutJson: false, contextLines: false },
  { id: 'cursor-agent', names: ['cursor-agent', 'cursor'], reports: 'state', stdoutJson: false, contextLines: false },
  { id: 'kimi', names: ['kimi', 'kimi-cli'], reports: 'state', stdoutJson: false, contextLines: false },
  { id: 'amp', names: ['amp'], reports: 'state', stdoutJson: false, contextLines: false },
  { id: 'pi', names: ['pi', 'pi-coding-agent'], reports: 'state', stdoutJson: false, contextLines: false },
  { id: 'omp', names: ['omp', 'oh-my-pi'], reports: 'state', stdoutJson: false, contextLines: false },
  { id: 'antigravity', names: ['antigravity', 'agy'], reports: 'session', stdoutJson: true, contextLines: false },
  { id: 'crush', names: ['crush'], reports: 'session', stdoutJson: false, contextLines: false },
  { id: 'devin', names: ['devin'], reports: 'session', stdoutJson: false, contextLines: false },
  { id: 'droid', names: ['droid', 'factory-droid'], reports: 'session', stdoutJson: false, contextLines: false },
  { id: 'grok', names: ['grok', 'grok-cli'], reports: 'session', stdoutJson: false, contextLines: false },
  { id: 'hermes', names: ['hermes', 'hermes-agent'], reports: 'session', stdoutJson: false, contextLines: false },
  { id: 'qoder', names: ['qoder', 'qodercli'], reports: 'session', stdoutJson: false, contextLines: false },
];

export function hookHarness(name: string): HookHarness | undefined {
  return HOOK_HARNESSES.find((h) => h.names.includes(name));
}

/**
 * Every harness id tuios recognises, with its aliases (manifests/*.toml). TUIOS_AGENT naming one of
 * these that is not the hook's harness drops the event; a name not here says nothing either way.
 */
export const KNOWN_HARNESS_NAMES: Record<string, string> = {
  aider: 'aider', 'aider-chat': 'aider',
  amp: 'amp',
  antigravity: 'antigravity', agy: 'antigravity',
  'claude-code': 'claude-code', claude: 'claude-code',
  cline: 'cline',
  codex: 'codex',
  copilot: 'copilot', 'github-copilot': 'copilot',
  crush: 'crush',
  'cursor-agent': 'cursor-agent', cursor: 'cursor-agent',
  devin: 'devin',
  droid: 'droid', 'factory-droid': 'droid',
  'gemini-cli': 'gemini-cli', gemini: 'gemini-cli',
  goose: 'goose',
  grok: 'grok', 'grok-cli': 'grok',
  hermes: 'hermes', 'hermes-agent': 'hermes',
  kilo: 'kilo', kilocode: 'kilo',
  kimi: 'kimi', 'kimi-cli': 'kimi',
  kiro: 'kiro', 'kiro-cli': 'kiro',
  omp: 'omp', 'oh-my-pi': 'omp',
  opencode: 'opencode', 'opencode-ai': 'opencode',
  pi: 'pi', 'pi-coding-agent': 'pi',
  qoder: 'qoder', qodercli: 'qoder',
  qwen: 'qwen', 'qwen-code': 'qwen',
};
