import type { SubSessionRef } from '../../types/sub-session-ref.js';
import type { ServerContext } from '../server-context.js';
import { CONSOLE_LIMITS, type ConsoleTreeNode, type ConsoleTreeView } from './console-api.js';

/** A session whose sub-sessions are still to be read, and where its nodes go. */
interface Pending {
  sessionId: string;
  children: ConsoleTreeNode[];
}

/**
 * The sub-agent and companion tree below a session (`getSubSessionRefs`, level by level), each child with its
 * parent's record of it and its own session's status, at most `CONSOLE_LIMITS.treeDepth` levels and `treeNodes`
 * nodes; `truncated` when more exist.
 *
 * @example
 * const tree = await sessionTree(context, 's1');
 */
export async function sessionTree(context: ServerContext, sessionId: string): Promise<ConsoleTreeView> {
  const { stateStore } = context.options;
  const tree: ConsoleTreeView = { children: [], nodeCount: 0, truncated: false };
  let level: Pending[] = [{ sessionId, children: tree.children }];
  for (let depth = 1; level.length > 0; depth += 1) {
    const refs = await Promise.all(level.map((pending) => stateStore.getSubSessionRefs(pending.sessionId)));
    if (depth > CONSOLE_LIMITS.treeDepth) {
      tree.truncated = refs.some((list) => list.length > 0);
      break;
    }
    const next: Pending[] = [];
    const placed: Array<{ ref: SubSessionRef; node: ConsoleTreeNode }> = [];
    level.forEach((pending, index) => {
      for (const ref of [...(refs[index] ?? [])].sort((left, right) => left.startedAt - right.startedAt)) {
        if (tree.nodeCount >= CONSOLE_LIMITS.treeNodes) {
          tree.truncated = true;
          return;
        }
        const node = nodeOf(ref);
        pending.children.push(node);
        placed.push({ ref, node });
        tree.nodeCount += 1;
        if (!node.remote) next.push({ sessionId: ref.subSessionId, children: node.children });
      }
    });
    const states = await Promise.all(placed.map(async ({ node }) => (node.remote ? null : stateStore.loadState(node.sessionId))));
    placed.forEach(({ node }, index) => {
      node.status = states[index]?.status ?? null;
    });
    level = next;
  }
  return tree;
}

function nodeOf(ref: SubSessionRef): ConsoleTreeNode {
  return {
    sessionId: ref.subSessionId,
    agentType: ref.agentType,
    mode: ref.mode,
    ...(ref.name === undefined ? {} : { name: ref.name }),
    parentToolCallId: ref.parentToolCallId,
    refStatus: ref.status,
    status: null,
    remote: ref.remote !== undefined,
    startedAt: ref.startedAt,
    ...(ref.completedAt === undefined ? {} : { completedAt: ref.completedAt }),
    children: [],
  };
}
