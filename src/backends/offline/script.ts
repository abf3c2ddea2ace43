import fs from 'node:fs';
import { describeAt } from '../../files/broken-file.js';
import { readJsonText } from '../../files/json-text.js';

/** One scripted assistant turn: text and/or tool calls, optionally preceded by reasoning. */
export interface ScriptedTurn {
  reasoning?: string;
  text?: string;
  toolCalls?: Array<{ name: string; arguments: unknown; id?: string }>;
}

/**
 * Reads an offline script: a JSON list of turns. Accepts `tool_calls` as well as `toolCalls` so a
 * script reads naturally to people who write OpenAI-style JSON. Throws a plain Error naming the
 * fault, for the CLI to report.
 */
export function loadScript(file: string): ScriptedTurn[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read offline script ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const reading = readJsonText(text);
  if (!reading.ok) throw new Error(`offline script ${describeAt(file, reading.problem)}`);
  const value = reading.value;
  if (!Array.isArray(value) || value.length === 0) throw new Error(`offline script ${file}: expected a non-empty JSON array of turns`);
  return value.map((raw, index) => parseTurn(raw, `${file}[${index}]`));
}

function parseTurn(raw: unknown, where: string): ScriptedTurn {
  if (typeof raw === 'string') return { text: raw };
  if (!raw || typeof raw !== 'object') throw new Error(`${where}: expected an object or a string`);
  const turn = raw as Record<string, unknown>;
  const calls = turn.toolCalls ?? turn.tool_calls;
  const result: ScriptedTurn = {};
  if (turn.text !== undefined) {
    if (typeof turn.text !== 'string') throw new Error(`${where}.text: expected a string`);
    result.text = turn.text;
  }
  if (turn.reasoning !== undefined) {
    if (typeof turn.reasoning !== 'string') throw new Error(`${where}.reasoning: expected a string`);
    result.reasoning = turn.reasoning;
  }
  if (calls !== undefined) {
    if (!Array.isArray(calls)) throw new Error(`${where}.tool_calls: expected an array`);
    result.toolCalls = calls.map((call, i) => {
      const c = call as Record<string, unknown> | null;
      if (!c || typeof c.name !== 'string') throw new Error(`${where}.tool_calls[${i}].name: expected a string`);
      return { name: c.name, arguments: c.arguments ?? {}, ...(typeof c.id === 'string' ? { id: c.id } : {}) };
    });
  }
  if (result.text === undefined && !result.toolCalls?.length) throw new Error(`${where}: a turn needs text or tool_calls`);
  return result;
}
