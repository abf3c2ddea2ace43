/**
 * Sent along to an OpenAI upstream of the client's own format (Chat to openai-chat, Responses to
 * openai-responses): `OpenAI-Beta`, with which a client opts in to a beta of the API it speaks
 * (https://platform.openai.com/docs/api-reference). A translating route has no use for it: the
 * upstream speaks another API, and the router writes that body itself.
 */
export const OPENAI_FORWARD_HEADERS: readonly string[] = ['openai-beta'];
