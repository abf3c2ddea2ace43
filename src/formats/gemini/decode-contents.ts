import { invalidRequest } from '../../core/errors.js';
import type { CanonicalRequest, FilePart, ImagePart, Message, Part, ReasoningPart, TextPart, ToolResultPart } from '../../core/request.js';
import { keepForSameFormat } from '../../core/same-format-only.js';
import { signatureMetadata } from '../../wire/gemini/thought-signature.js';
import { isSealedByUs, unsealReasoning } from '../responses/seal-reasoning.js';
import { asArray, asObject, optionalBoolean, optionalString, requiredString, wrongType, type Json } from '../shared/read-fields.js';

/**
 * Gemini's `contents` (https://ai.google.dev/api/caching#Content) as canonical messages: `user`
 * turns as user messages, their function responses as a tool message before the rest; `model`
 * turns as assistant messages. Thought parts are reasoning; a thoughtSignature stays on the part it
 * came on, in the gemini namespace, unless this router sealed it (another upstream's reasoning,
 * carried in a part the client replays: encode-parts.ts), when the reasoning it holds is put back
 * just before that part.
 */
export interface DecodedContents {
  messages: Message[];
  /** Some signature was this router's seal: the body cannot go to a Gemini upstream as written. */
  sealed: boolean;
}

/** Part fields that only steer Gemini's own reading of a part: kept for a Gemini upstream, named elsewhere. */
const STEERING_FIELDS = ['videoMetadata', 'mediaResolution', 'mediaProcessing', 'partMetadata', 'speechMetadata'];

/** Part kinds only Gemini makes or reads (its own code execution and server-side tools, an audio transcription), replayed. */
const GEMINI_ONLY_PARTS = ['executableCode', 'codeExecutionResult', 'toolCall', 'toolResponse', 'audioTranscription'];

/** A part's data: exactly one of these (Part's `data` oneof: https://ai.google.dev/api/caching#Part). */
const DATA_FIELDS = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse', ...GEMINI_ONLY_PARTS];

/** The Files API's URIs: a file uploaded to Google, which only a Gemini upstream (with the same project) can read. */
const FILES_API = /^https:\/\/generativelanguage\.googleapis\.com\/[^/]+\/files\//;

export function decodeContents(raw: unknown, request: CanonicalRequest, secret: string): DecodedContents {
  const list = asArray(raw, 'contents');
  if (!list.length) throw invalidRequest('contents: at least one Content is required.', 'contents', 'missing_required_parameter');
  const state = { sealed: false, secret, calls: [] as Array<{ id: string; name: string; answered: boolean }> };
  const messages: Message[] = [];
  list.forEach((item, index) => {
    const path = `contents[${index}]`;
    const content = asObject(item, path);
    const role = optionalString(content, 'role', `${path}.role`) ?? 'user';
    // `function` is the role earlier API versions gave function responses.
    if (role !== 'user' && role !== 'model' && role !== 'function') throw invalidRequest(`${path}.role: expected 'user' or 'model', got '${role.slice(0, 40)}'.`, `${path}.role`);
    const parts = asArray(content.parts, `${path}.parts`);
    if (!parts.length) throw invalidRequest(`${path}.parts: a Content needs at least one part.`, `${path}.parts`);
    if (role === 'model') {
      messages.push({ role: 'assistant', content: parts.flatMap((part, at) => modelPart(asObject(part, `${path}.parts[${at}]`), `${path}.parts[${at}]`, request, state, index, at)) });
      return;
    }
    const decoded = parts.flatMap((part, at) => userPart(asObject(part, `${path}.parts[${at}]`), `${path}.parts[${at}]`, request, state));
    const results = decoded.filter((part) => part.type === 'tool-result');
    const rest = decoded.filter((part) => part.type !== 'tool-result');
    if (results.length) messages.push({ role: 'tool', content: results });
    if (rest.length || !results.length) messages.push({ role: 'user', content: rest });
  });
  return { messages, sealed: state.sealed };
}

interface State {
  sealed: boolean;
  secret: string;
  /** Every function call so far, for responses that name their call only by the function. */
  calls: Array<{ id: string; name: string; answered: boolean }>;
}

/** A model turn's part: text, a thought, a function call, or what only Gemini replays. */
function modelPart(part: Json, path: string, request: CanonicalRequest, state: State, contentIndex: number, partIndex: number): Part[] {
  nameSteering(part, path, request);
  if (part.functionResponse !== undefined && part.functionResponse !== null) throw invalidRequest(`${path}.functionResponse: function responses come from the user; put this part in a Content with role 'user'.`, `${path}.functionResponse`);
  const signature = optionalString(part, 'thoughtSignature', `${path}.thoughtSignature`);
  const sealed = signature !== undefined && isSealedByUs(signature);
  const unsealed = sealed ? [opened(signature, path, state)] : [];
  const own = sealed ? {} : signatureMetadata(signature || undefined);
  if (part.functionCall !== undefined && part.functionCall !== null) {
    const call = asObject(part.functionCall, `${path}.functionCall`);
    const name = requiredString(call, 'name', `${path}.functionCall.name`);
    const args = call.args === undefined || call.args === null ? {} : asObject(call.args, `${path}.functionCall.args`);
    // A call without Gemini's id (an older client, or a call the client wrote) gets one from its place in the conversation, the same on every turn.
    const id = optionalString(call, 'id', `${path}.functionCall.id`) || `call_${name}_${contentIndex}_${partIndex}`;
    state.calls.push({ id, name, answered: false });
    return [...unsealed, { type: 'tool-call', id, name, arguments: JSON.stringify(args), ...own }];
  }
  if (part.text !== undefined && part.text !== null) {
    const text = requiredString(part, 'text', `${path}.text`);
    if (optionalBoolean(part, 'thought', `${path}.thought`)) {
      // A sealed thought is the reasoning it holds; its own text was the same reasoning, shown.
      if (sealed) return unsealed;
      return [{ type: 'reasoning', text, ...own } satisfies ReasoningPart];
    }
    return [...unsealed, ...(text || !sealed ? [{ type: 'text', text, ...own } satisfies TextPart] : [])];
  }
  return [...unsealed, ...dataPart(part, path, request)];
}

/** A user turn's part: text, media, a function's response. */
function userPart(part: Json, path: string, request: CanonicalRequest, state: State): Part[] {
  nameSteering(part, path, request);
  if (part.functionResponse !== undefined && part.functionResponse !== null) return [functionResponse(asObject(part.functionResponse, `${path}.functionResponse`), `${path}.functionResponse`, request, state)];
  if (part.functionCall !== undefined && part.functionCall !== null) throw invalidRequest(`${path}.functionCall: function calls come from the model; put this part in a Content with role 'model'.`, `${path}.functionCall`);
  if (part.text !== undefined && part.text !== null) return [{ type: 'text', text: requiredString(part, 'text', `${path}.text`) }];
  return dataPart(part, path, request);
}

/** Inline or referenced media, or a part only Gemini takes. */
function dataPart(part: Json, path: string, request: CanonicalRequest): Part[] {
  if (part.inlineData !== undefined && part.inlineData !== null) {
    const blob = asObject(part.inlineData, `${path}.inlineData`);
    const mimeType = requiredString(blob, 'mimeType', `${path}.inlineData.mimeType`).toLowerCase();
    const data = requiredString(blob, 'data', `${path}.inlineData.data`);
    if (mimeType.startsWith('image/')) return [{ type: 'image', url: `data:${mimeType};base64,${data}`, mediaType: mimeType } satisfies ImagePart];
    return [{ type: 'file', source: { kind: 'base64', data }, mediaType: mimeType, ...displayName(blob) } satisfies FilePart];
  }
  if (part.fileData !== undefined && part.fileData !== null) {
    const file = asObject(part.fileData, `${path}.fileData`);
    const uri = requiredString(file, 'fileUri', `${path}.fileData.fileUri`);
    const mimeType = optionalString(file, 'mimeType', `${path}.fileData.mimeType`)?.toLowerCase();
    if (FILES_API.test(uri)) return [{ type: 'file', source: { kind: 'file-id', id: uri, provider: 'gemini' }, ...(mimeType ? { mediaType: mimeType } : {}), ...displayName(file) } satisfies FilePart];
    if (mimeType?.startsWith('image/')) return [{ type: 'image', url: uri, mediaType: mimeType } satisfies ImagePart];
    return [{ type: 'file', source: { kind: 'url', url: uri }, ...(mimeType ? { mediaType: mimeType } : {}), ...displayName(file) } satisfies FilePart];
  }
  const only = GEMINI_ONLY_PARTS.find((kind) => part[kind] !== undefined && part[kind] !== null);
  if (only) {
    // Replayed code execution or server-side tool use: leaving it out would change what the model sees.
    keepForSameFormat(request, `${path}.${only}`, `a replayed ${only} part is Gemini's own and goes only to a Gemini upstream; this route cannot pass it on.`);
    return [];
  }
  throw invalidRequest(`${path}: a part needs one of text, inlineData, fileData, functionCall or functionResponse.`, path);
}

const displayName = (json: Json): { filename?: string } => (typeof json.displayName === 'string' && json.displayName ? { filename: json.displayName } : {});

/**
 * A function's response as a tool result: `output` is the output and `error` a failure, else the
 * whole object is the output (https://ai.google.dev/api/caching#FunctionResponse), written as
 * text; images among its `parts` go with it. A response without Gemini's id answers the earliest
 * unanswered call of that function.
 */
function functionResponse(response: Json, path: string, request: CanonicalRequest, state: State): ToolResultPart {
  const name = requiredString(response, 'name', `${path}.name`);
  const body = response.response === undefined || response.response === null ? {} : asObject(response.response, `${path}.response`);
  const given = optionalString(response, 'id', `${path}.id`);
  const call = given ? state.calls.find((entry) => entry.id === given) : state.calls.find((entry) => entry.name === name && !entry.answered);
  if (!given && !call) throw invalidRequest(`${path}: this response to '${name}' answers no functionCall of '${name}' in the conversation; give it the call's id.`, `${path}.id`);
  if (call) call.answered = true;
  const failed = body.error !== undefined && body.output === undefined;
  const value = failed ? body.error : body.output !== undefined ? body.output : body;
  const content: Array<TextPart | ImagePart> = [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) }];
  if (response.parts !== undefined && response.parts !== null) {
    asArray(response.parts, `${path}.parts`).forEach((item, index) => {
      const at = `${path}.parts[${index}]`;
      const decoded = dataPart(asObject(item, at), at, request);
      for (const part of decoded) {
        if (part.type === 'image') content.push(part);
        else keepForSameFormat(request, at, 'a function response carries text and images only on this route; send the file in a user part.');
      }
    });
  }
  const unknown = Object.keys(response).filter((key) => !['name', 'response', 'id', 'parts'].includes(key));
  if (unknown.length) keepForSameFormat(request, `${path}.${unknown[0]}`, `${unknown.join(', ')} steer a Gemini upstream's scheduling of the response; this route answers without them.`, false);
  return { type: 'tool-result', callId: given ?? call!.id, content, ...(failed ? { isError: true } : {}) };
}

/** Reasoning another upstream made, sealed by this router into the part the client replays. */
function opened(signature: string, path: string, state: State): ReasoningPart {
  state.sealed = true;
  return unsealReasoning(signature, state.secret, `${path}.thoughtSignature`);
}

/** Part fields that steer Gemini's reading of media: a Gemini upstream gets them forwarded; elsewhere they are named. */
function nameSteering(part: Json, path: string, request: CanonicalRequest): void {
  const data = DATA_FIELDS.filter((field) => part[field] !== undefined && part[field] !== null);
  if (data.length > 1) throw invalidRequest(`${path}: a part holds one kind of data, and this one has ${data.join(' and ')}; give each its own part.`, `${path}.${data[1]}`);
  for (const field of STEERING_FIELDS) {
    if (part[field] === undefined || part[field] === null) continue;
    keepForSameFormat(request, `${path}.${field}`, `only a Gemini upstream reads ${field}; this route reads the part without it.`, false);
  }
  if (part.thought !== undefined && part.thought !== null && typeof part.thought !== 'boolean') throw wrongType(`${path}.thought`, 'a boolean');
}
