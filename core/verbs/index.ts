// Every verb the daemon answers, one line each. list-verbs, the CLI's flag table and help, the
// link policy and printing are read from the records themselves (core/rpc/verb.ts): adding a verb
// is its defineVerb record in a file of core/verbs/ and its line here.
import type { VerbDef } from '../rpc/verb.js';
import { newSession, listSessions, killSession, setSessionName } from './sessions.js';
import { newWindow, listWindows, closeWindow, setWindow, resizeWindow, selectWindow } from './windows.js';
import { sendText, sendKeys } from './input.js';
import { capturePane } from './capture.js';
import { captureState } from './capture-state.js';
import { waitFor } from './wait-for.js';
import { subscribe } from './events.js';
import { setAgentState, getAgentState, listAgents, setAgentMeta, setAgentSession } from './agents.js';
import { explainAgentDetect } from './detect.js';
import { explainAgentScreen } from './screen.js';
import { listAttention, dismissAttention, markAttention, attach, focusWindow } from './inbox.js';
import { sendAgentMessage, readAgentMessages, askHuman, answerAsk, releaseAgentMessage } from './mail.js';
import { paneGrants, setPaneGrants, configApply } from './grants.js';
import { getConfig, setConfig } from './config.js';
import { askAgent, queuePrompt, listQueued, cancelQueued, stagePaste } from './typing.js';
import { peekPrompt, respond } from './prompt.js';
import { tuiInput, tuiResize } from './tui.js';
import { newWorktree, listWorktrees, diffWorktreeVerb, removeWorktreeVerb, pullWorktree } from './worktree.js';
import { startAgent, fanOut, keepFan } from './fan.js';
import { resolvePane, reportAgentActivity } from './hooks.js';
import { requestApproval, replyApproval, releaseApproval } from './approvals.js';
import { resumeAgent } from './resume.js';
import { listVerbs, serverInfo, killServer, sshHostKey } from './server.js';
import { listCheckpoints, checkpointDiff, restoreCheckpoint } from './checkpoints.js';
import { restrictConnection } from './restrict.js';
import { getLayout, zoomWindow, swapWindow, resizeTile } from './layout.js';
import { splitWindow } from './split.js';
import { setClientTitle } from './client-title.js';
import { listPaneFiles } from './pane-files.js';
import { reviewDiff, reviewNote, sendReview } from './review.js';
import { shipCommit, shipMerge, shipPush, shipPr, shipStatus } from './ship.js';
import { agentActivity } from './activity.js';
import { compareFanVerb, verifyFan, diffFan } from './fan-compare.js';
import { selectWorkspace, setWorkspaceName, setWorkspaceOrder, moveWindow } from './workspaces.js';

export const allVerbs: VerbDef[] = [
  newSession,
  listSessions,
  killSession,
  setSessionName,
  newWindow,
  listWindows,
  closeWindow,
  setWindow,
  resizeWindow,
  selectWindow,
  selectWorkspace,
  setWorkspaceName,
  setWorkspaceOrder,
  moveWindow,
  sendText,
  sendKeys,
  capturePane,
  captureState,
  waitFor,
  subscribe,
  setAgentState,
  getAgentState,
  listAgents,
  setAgentMeta,
  setAgentSession,
  explainAgentDetect,
  explainAgentScreen,
  listAttention,
  dismissAttention,
  markAttention,
  attach,
  focusWindow,
  sendAgentMessage,
  readAgentMessages,
  askHuman,
  answerAsk,
  releaseAgentMessage,
  paneGrants,
  setPaneGrants,
  configApply,
  getConfig,
  setConfig,
  askAgent,
  queuePrompt,
  stagePaste,
  listQueued,
  cancelQueued,
  peekPrompt,
  respond,
  tuiInput,
  tuiResize,
  newWorktree,
  listWorktrees,
  diffWorktreeVerb,
  removeWorktreeVerb,
  pullWorktree,
  startAgent,
  fanOut,
  keepFan,
  resolvePane,
  reportAgentActivity,
  requestApproval,
  replyApproval,
  releaseApproval,
  resumeAgent,
  listVerbs,
  serverInfo,
  killServer,
  sshHostKey,
  restrictConnection,
  getLayout,
  zoomWindow,
  swapWindow,
  resizeTile,
  splitWindow,
  setClientTitle,
  listPaneFiles,
  listCheckpoints,
  checkpointDiff,
  restoreCheckpoint,
  reviewDiff,
  reviewNote,
  sendReview,
  shipCommit,
  shipMerge,
  shipPush,
  shipPr,
  shipStatus,
  agentActivity,
  compareFanVerb,
  verifyFan,
  diffFan,
];
