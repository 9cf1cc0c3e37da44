// Where the reply editor's `@` names come from (spec: Naming a pane, an agent or a file): the
// agents and panes of every session this client may show, each as its address `session/window`,
// and the files of the reply's pane folder, read with list-pane-files one folder at a time and
// kept while the editor is open. No files for a pane of a linked host, a pane whose shell runs on
// another machine, or a client over the SSH server: the files are not where the person sits.
import type { TuiHost } from './overlay.js';
import type { AgentRow } from './rows.js';
import type { FolderEntry, NameEntry, NameSource } from './names.js';
import { clean } from './text.js';
import { NAMES_FOLDERS_CACHED } from './limits.js';

/** Why the reply's pane offers no files, or null when it does. */
export function noFiles(agent: AgentRow, overSsh: boolean): string | null {
  if (overSsh) return 'the client is over the SSH server';
  if (!agent.w) return 'the agent is on a linked machine';
  if (agent.w.host) return 'the pane\'s shell runs on another machine';
  return null;
}

export function replyNames(host: TuiHost, agent: AgentRow): NameSource {
  const svc = host.svc;
  const folders = new Map<string, readonly FolderEntry[] | null>();
  const offersFiles = noFiles(agent, host.overSsh) === null;
  const read = async (folder: string) => {
    const r = await host.acts.call<{ entries: FolderEntry[] }>('list-pane-files', { window: agent.w!.id, path: folder });
    folders.set(folder, r.ok ? r.value.entries : []);
    host.redraw();
  };
  return {
    panes(): NameEntry[] {
      const agents: NameEntry[] = [];
      const panes: NameEntry[] = [];
      const sessions = [...svc.model.sessions.values()].filter((s) => host.visible(s.id)).sort((a, b) => a.order - b.order);
      for (const s of sessions) {
        for (const w of [...svc.model.windowsOf(s)].sort((a, b) => a.order - b.order)) {
          const insert = `${clean(s.name)}/${clean(w.name)}`;
          const state = svc.agents.holdsAgent(w) ? String(svc.agents.info(w).state ?? 'none') : 'none';
          if (state !== 'none') agents.push({ kind: 'agent', insert, detail: state });
          else panes.push({ kind: 'pane', insert });
        }
      }
      return [...agents, ...panes];
    },
    files(folder: string): readonly FolderEntry[] | null {
      if (!offersFiles) return [];
      if (folders.has(folder)) return folders.get(folder)!;
      if (folders.size >= NAMES_FOLDERS_CACHED) folders.delete(folders.keys().next().value!);
      folders.set(folder, null);
      host.track(read(folder));
      return null;
    },
  };
}
