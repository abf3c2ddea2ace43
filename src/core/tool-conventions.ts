/**
 * How tool shapes that only some formats have (namespaces, free-form custom tools) are carried in
 * the canonical form, so every backend and client format reads them the same way.
 */

/** A namespaced function is flattened to `namespace__name` for backends without namespaces. */
export const canonicalToolName = (name: string, namespace?: string): string => (namespace ? `${namespace}__${name}` : name);

/** The one string parameter a free-form custom tool becomes for backends without custom tools. */
export const CUSTOM_TOOL_INPUT = 'input';

export const customToolArguments = (input: string): string => JSON.stringify({ [CUSTOM_TOOL_INPUT]: input });

/** The custom tool's raw input from the canonical arguments (`{"input": "…"}`), tolerating plain text. */
export function customToolInput(args: string): string {
  try {
    const value = JSON.parse(args) as unknown;
    if (value && typeof value === 'object') {
      const input = (value as Record<string, unknown>)[CUSTOM_TOOL_INPUT];
      if (typeof input === 'string') return input;
    }
  } catch {
    // a model that ignored the schema sent the raw input itself
  }
  return args;
}
