// Every verb the daemon answers. list-verbs, the CLI's flag table and help are read from here.
import type { VerbDef } from '../rpc/verb.js';
import { sessionVerbs } from './sessions.js';
import { windowVerbs } from './windows.js';
import { inputVerbs } from './input.js';
import { captureVerbs } from './capture.js';
import { captureStateVerbs } from './capture-state.js';
import { waitVerbs } from './wait.js';
import { eventVerbs } from './events.js';
import { serverVerbs } from './server.js';
import { agentVerbs } from './agents.js';
import { detectVerbs } from './detect.js';
import { screenVerbs } from './screen.js';
import { inboxVerbs } from './inbox.js';
import { mailVerbs } from './mail.js';
import { grantVerbs } from './grants.js';
import { typingVerbs } from './typing.js';
import { promptVerbs } from './prompt.js';
import { tuiVerbs } from './tui.js';
import { worktreeVerbs } from './worktree.js';
import { fanVerbs } from './fan.js';
import { hookVerbs } from './hooks.js';
import { approvalVerbs } from './approvals.js';
import { resumeVerbs } from './resume.js';

export const allVerbs: VerbDef[] = [
  ...sessionVerbs,
  ...windowVerbs,
  ...inputVerbs,
  ...captureVerbs,
  ...captureStateVerbs,
  ...waitVerbs,
  ...eventVerbs,
  ...agentVerbs,
  ...detectVerbs,
  ...screenVerbs,
  ...inboxVerbs,
  ...mailVerbs,
  ...grantVerbs,
  ...typingVerbs,
  ...promptVerbs,
  ...tuiVerbs,
  ...worktreeVerbs,
  ...fanVerbs,
  ...hookVerbs,
  ...approvalVerbs,
  ...resumeVerbs,
  ...serverVerbs,
] as unknown as VerbDef[];
