import { dropRefused, type ChatProfile } from './profile.js';

/**
 * Groq (https://console.groq.com/docs/openai): `logprobs`, `logit_bias`, `top_logprobs` and
 * `messages[].name` are answered with a 400, and so is any `n` other than 1. They are left out,
 * each named in a warning: none changes what the model is asked, only what else comes back.
 */
export const groqProfile: ChatProfile = {
  name: 'groq',
  doc: 'https://console.groq.com/docs/openai',
  apply(body, { warnings }) {
    const why = 'Groq refuses it';
    dropRefused(body, ['logprobs', 'logit_bias', 'top_logprobs'], why, warnings);
    if (body.n !== undefined && body.n !== 1) dropRefused(body, ['n'], 'Groq takes only n=1', warnings);
    if (!Array.isArray(body.messages)) return;
    let named = false;
    for (const message of body.messages as Array<Record<string, unknown>>) {
      if (message && typeof message === 'object' && Object.hasOwn(message, 'name')) {
        delete message.name;
        named = true;
      }
    }
    if (named) warnings.push(`messages[].name not sent: ${why}.`);
  },
};
