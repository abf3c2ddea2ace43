import type { Message, ToolSpec } from './request.js';

/**
 * Tool search, client side: a tool declared deferred (Anthropic's `defer_loading`) is held back
 * until a tool result loads it (a `tool_reference` naming it, as Claude Code's ToolSearch answers);
 * from then on it is an ordinary tool.
 * https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool
 *
 * An upstream that has no tool search of its own gets the tools not deferred, in the client's
 * order, then the loaded ones in the order the conversation first loaded them. A later turn only
 * ever appends to that list, so the tools part of the upstream prompt is the same turn to turn
 * until another tool is loaded.
 */

/** The tools a conversation's tool results loaded, in the order first named. */
export function loadedToolNames(messages: readonly Message[]): string[] {
  const names = new Set<string>();
  for (const message of messages) {
    for (const part of message.content) {
      if (part.type === 'tool-result') for (const name of part.loadsTools ?? []) names.add(name);
    }
  }
  return [...names];
}

export interface ToolsForUpstream {
  /** Not deferred (declared order), then the loaded deferred tools (load order). */
  tools: ToolSpec[];
  /** Deferred tools not loaded yet, in declared order. */
  held: ToolSpec[];
  /** Loaded names the request declares no tool for. */
  unresolved: string[];
}

export function toolsForUpstream(declared: readonly ToolSpec[], loaded: readonly string[]): ToolsForUpstream {
  const byName = new Map<string, ToolSpec>();
  for (const tool of declared) if (!byName.has(tool.name)) byName.set(tool.name, tool);
  const tools = declared.filter((tool) => !tool.deferred);
  const taken = new Set<string>();
  const unresolved: string[] = [];
  for (const name of loaded) {
    const tool = byName.get(name);
    if (!tool) unresolved.push(name);
    else if (tool.deferred && !taken.has(name)) {
      taken.add(name);
      tools.push(tool);
    }
  }
  const held = declared.filter((tool) => tool.deferred && !taken.has(tool.name));
  return { tools, held, unresolved };
}

/**
 * What a tool result that loaded tools says to a model whose upstream knows no tool references:
 * the tools themselves reach it in its tool list.
 */
export function toolsLoadedNote(names: readonly string[]): string {
  const list = names.join(', ');
  return names.length === 1
    ? `Tool loaded: ${list}. It is in your tool list now; call it directly.`
    : `Tools loaded: ${list}. They are in your tool list now; call them directly.`;
}
