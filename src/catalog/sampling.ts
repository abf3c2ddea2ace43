import type { CanonicalRequest, ReasoningEffort } from '../core/request.js';
import type { Capabilities, SamplingSetting } from './model-capabilities.js';

/** The sampling settings a request asks for that its model would refuse, and the warning naming them. */
export interface UnsentSampling {
  settings: SamplingSetting[];
  warning?: string;
}

const WIRE_NAME: Record<SamplingSetting, string> = { temperature: 'temperature', topP: 'top_p', topK: 'top_k' };

/**
 * Which of the request's sampling settings to leave out for this model: those it refuses outright,
 * those it refuses at the effort being sent (OpenAI's newest take them only at `none`, their default when no effort is sent), and all but
 * the first of a set it refuses together. Sending them would earn an upstream 400; leaving one out
 * changes how the answer is sampled, not what is asked, so it is named in the warnings.
 */
export function unsentSampling(request: CanonicalRequest, capabilities: Capabilities | undefined, model: string, effortSent: ReasoningEffort | undefined): UnsentSampling {
  if (!capabilities) return { settings: [] };
  const asked = (['temperature', 'topP', 'topK'] as const).filter((setting) => request[setting] !== undefined);
  const refused = new Set<SamplingSetting>(asked.filter((setting) => capabilities.refusesSampling.includes(setting)));
  let why = `${model} refuses them`;
  if (capabilities.samplingOnlyAtEffort && effortSent !== undefined && effortSent !== capabilities.samplingOnlyAtEffort) {
    for (const setting of asked) if (setting !== 'topK') refused.add(setting);
    why = `${model} takes them only at reasoning effort '${capabilities.samplingOnlyAtEffort}'`;
  }
  const exclusive = capabilities.exclusiveSampling?.filter((setting) => asked.includes(setting) && !refused.has(setting)) ?? [];
  if (exclusive.length > 1) {
    for (const setting of exclusive.slice(1)) refused.add(setting);
    if (refused.size === exclusive.length - 1) why = `${model} refuses ${exclusive.map((setting) => WIRE_NAME[setting]).join(' and ')} together; ${WIRE_NAME[exclusive[0]!]} was kept`;
  }
  const settings = asked.filter((setting) => refused.has(setting));
  return settings.length ? { settings, warning: `${settings.map((setting) => WIRE_NAME[setting]).join(', ')} not sent: ${why}.` } : { settings };
}
