// The daemon's services, built in order by the composition root (main.ts). Verbs reach the rest
// of the daemon only through this. Later capabilities add their service here.
import type { Paths } from '../config/paths.js';
import type { ConfigStore } from '../config/config.js';
import type { Logger } from '../log.js';
import type { Bus } from '../bus.js';
import type { Model } from '../model/model.js';
import type { SnapshotStore } from '../store/snapshot.js';
import type { Responder } from '../rpc/responder.js';
import type { Caller, Placement } from '../rpc/caller.js';
import type { Window } from '../model/window.js';
import type { AgentStore } from '../agent-state/store.js';
import type { ManifestSet } from '../detection/manifest.js';
import type { Detector } from '../detection/detector.js';
import type { PersonRegistry } from '../security/person.js';
import type { Inbox } from '../inbox/inbox.js';
import type { HoldRegistry } from '../inbox/holds.js';
import type { MailStore } from '../mail/mail.js';
import type { AskStore } from '../mail/ask.js';
import type { PermissionsState } from '../security/permissions.js';
import type { OpCache } from '../delivery/typing.js';
import type { DeliveryQueue } from '../delivery/queue.js';
import type { PasteFolder } from '../delivery/paste-folder.js';
import type { StagedPastes } from '../delivery/paste-stage.js';
import type { ReplyHistory } from '../delivery/reply-history.js';
import type { RemoteHosts } from '../hosts/remote.js';
import type { StreamKinds } from '../hosts/streams.js';
import type { HostedPanes } from '../hosts/hosted-serve.js';
import type { RemoteTarget } from '../hosts/target.js';
import type { VerbInfo } from '../rpc/verb-info.js';
import type { CheckpointService } from '../git/checkpoint-service.js';
import type { ReviewNotes } from '../review/notes.js';
import type { ShipState } from '../git/ship-journal.js';
import type { ActivityLog } from '../activity/log.js';
import type { FanChecks } from '../activity/fan-checks.js';
import type { AttachedClients } from './clients.js';

/** What the services see of the dispatcher (core/rpc/dispatch.ts implements it). */
export interface VerbCalls {
  list(): VerbInfo[];
  get(name: string): VerbInfo | undefined;
  /** One call as `caller`; rejects with the verb's TuiosError. */
  call(verb: string, params: Record<string, unknown>, caller: Caller, out?: Responder, signal?: AbortSignal): Promise<unknown>;
}

export interface Services {
  readonly paths: Paths;
  readonly config: ConfigStore;
  readonly log: Logger;
  readonly bus: Bus;
  readonly model: Model;
  readonly snapshot: SnapshotStore;
  /** The verbs: their records, and calling one in-process (the TUI, ssh exec, a link, a hosted pane). */
  readonly dispatcher: VerbCalls;
  readonly agents: AgentStore;
  /** The harness manifests loaded at start, in lookup order. */
  readonly manifests: ManifestSet;
  readonly detector: Detector;
  readonly person: PersonRegistry;
  readonly inbox: Inbox;
  /** Approvals held for the Inbox while a harness's hook waits. */
  readonly holds: HoldRegistry;
  readonly mail: MailStore;
  readonly asks: AskStore;
  /** [agents.permissions] as in force (a widening waits for config-apply). */
  readonly permissions: PermissionsState;
  /** Operation ids of typing verbs: a same-id retry replays, never types twice. */
  readonly ops: OpCache;
  readonly queue: DeliveryQueue;
  /** The paste folder: large replies' blocks, written when typed, removed when the daemon stops. */
  readonly pastes: PasteFolder;
  /** Paste blocks sent ahead of their message in pieces (stage-paste), until it takes them. */
  readonly pasteStage: StagedPastes;
  /** What the person sent to agents from the Inbox, by harness and folder, in memory only. */
  readonly replyHistory: ReplyHistory;
  /** Turn checkpoints: taken at each turn's end, listed, diffed and restored by the checkpoint verbs. */
  readonly checkpoints: CheckpointService;
  /** Review notes on panes' changes (review-note, send-review), saved under the state folder. */
  readonly reviews: ReviewNotes;
  /** The ship verbs' journal and what the last start found in it. */
  readonly ship: ShipState;
  /** Panes' activity rings and the last command each shell finished (spec: What the agent has been doing). */
  readonly activity: ActivityLog;
  /** verify-fan's checks, per attempt session. */
  readonly fanChecks: FanChecks;
  /** The drawing clients attached now (core/daemon/clients.ts): "the attached client" of a verb. */
  readonly clients: AttachedClients;
  /** Linked hosts: set by the link extension at start; null without it (another machine is refused). */
  remote: RemoteHosts | null;
  /** Stream kinds linked hosts may open here (the link serves them; parts register at start). */
  readonly linkStreams: StreamKinds<Services>;
  /** Processes this machine runs for windows held on linked hosts (their new-window --host). */
  readonly hostedPanes: HostedPanes;
  /**
   * Calls whose -s/-w names another machine (core/hosts/forward.ts): the dispatcher asks here
   * and hands them over, so it imports nothing of the hosts.
   */
  readonly forward: {
    targetFor(verb: VerbInfo, params: Record<string, unknown>): RemoteTarget | null;
    call(verb: VerbInfo, target: RemoteTarget, params: Record<string, unknown>, caller: Caller, signal: AbortSignal): Promise<unknown>;
  };
  /** Where the extensions listen (ssh: {host, port, fingerprint}), as server-info reports it. */
  readonly endpoints: Map<string, unknown>;
  /** The program names and aliases a harness id answers to (from its manifest), for selectors. */
  harnessNames(id: string): string[];
  readonly bootId: string;
  readonly startedAt: number;
  /** The daemon's environment when it started (a new pane's base environment). */
  readonly baseEnv: Record<string, string | undefined>;
  /** Where a caller is, from the kernel's view of its pid (cached per connection). */
  placement(c: Caller): Placement;
  /** The pane a caller runs in, for defaults: its placement, else the pane its CLI named. */
  callerPane(c: Caller): Window | null;
  /** Stops the daemon: saves the snapshot, ends every pane, removes the socket. */
  shutdown(reason: string): void;
}
