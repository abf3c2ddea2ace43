import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The mix: each format, plain and streamed, in turn (routes: basic → openai-chat upstream, pro → anthropic). */
const REQUESTS: Array<{ path: string; body: unknown }> = [
  { path: '/v1/chat/completions', body: { model: 'svc.intelligent-basic', messages: [{ role: 'user', content: 'hi' }] } },
  { path: '/v1/chat/completions', body: { model: 'svc.intelligent-pro', messages: [{ role: 'user', content: 'hi' }], stream: true } },
  { path: '/v1/responses', body: { model: 'svc.intelligent-pro', input: 'hi' } },
  { path: '/v1/responses', body: { model: 'svc.intelligent-basic', input: 'hi', stream: true } },
  { path: '/v1/messages', body: { model: 'svc.intelligent-pro', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] } },
  { path: '/v1/messages', body: { model: 'svc.intelligent-basic', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }], stream: true } },
];

export interface MixedResult {
  /** Answers with usage the client could read, per second of load. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** 200 answers that carried usage, and the tokens they reported. */
  answered: number;
  inputTokens: number;
  outputTokens: number;
  /** Answers by status other than 200 (a 429 at the cap, a 502 while a router is down). */
  refused: Record<string, number>;
  /** 200 answers whose usage could not be read (should be none). */
  withoutUsage: number;
  /** Connection-level failures wrk counted (connect, read, write, timeout). */
  socketErrors: number;
  /** Request ids of the answers with usage. */
  seenIds: Set<string>;
}

/**
 * Lua for wrk: cycles through the mix; reads each answer's usage and request id from svc_meta
 * (the last one in a stream), or from a Messages stream's message_delta and x-request-id header;
 * after `seconds` each connection sends nothing more, so every request started is answered
 * before wrk stops (a request cut off by wrk's end would be billed without the client seeing it).
 */
function luaScript(key: string, seconds: number, outDir: string): string {
  const formatted = REQUESTS.map((request) => `{ ${JSON.stringify(request.path)}, [==[${JSON.stringify(request.body)}]==] }`).join(',\n  ');
  return `local mix = {
  ${formatted}
}
local headers = { ["authorization"] = "Bearer ${key}", ["content-type"] = "application/json", ["anthropic-version"] = "2023-06-01" }
local threads = {}
local next_id = 0

function setup(thread)
  next_id = next_id + 1
  thread:set("tid", next_id)
  table.insert(threads, thread)
end

function init(args)
  deadline = os.time() + ${seconds}
  prepared = {}
  for i, entry in ipairs(mix) do prepared[i] = wrk.format("POST", entry[1], headers, entry[2]) end
  turn = 0
  answered, tokens_in, tokens_out, without_usage = 0, 0, 0, 0
  refused = {}
  seen = io.open("${outDir}/seen-" .. tid .. ".txt", "w")
  seen:setvbuf("line")
end

function delay()
  if os.time() >= deadline then return 3600000 end
  return 0
end

function request()
  turn = turn + 1
  return prepared[(turn % #prepared) + 1]
end

function response(status, headers, body)
  if status ~= 200 then
    refused[status] = (refused[status] or 0) + 1
    return
  end
  local id, input, output
  for i, a, b in string.gmatch(body, '"svc_meta":{"request_id":"([%w_]+)".-"usage":{"input_tokens":(%d+),"output_tokens":(%d+)') do id, input, output = i, a, b end
  if not id then
    for a, b in string.gmatch(body, '"type":"message_delta".-"usage":{"input_tokens":(%d+),"output_tokens":(%d+)') do input, output = a, b end
    id = headers["x-request-id"]
  end
  if id and input then
    answered = answered + 1
    tokens_in = tokens_in + tonumber(input)
    tokens_out = tokens_out + tonumber(output)
    seen:write(id, "\\n")
  else
    without_usage = without_usage + 1
  end
end

function done(summary, latency, requests)
  local a, i, o, w, counts = 0, 0, 0, 0, {}
  for _, thread in ipairs(threads) do
    a = a + thread:get("answered")
    i = i + thread:get("tokens_in")
    o = o + thread:get("tokens_out")
    w = w + thread:get("without_usage")
    for status, n in pairs(thread:get("refused")) do counts[status] = (counts[status] or 0) + n end
  end
  local r = ""
  for status, n in pairs(counts) do r = r .. status .. ":" .. n .. " " end
  local e = summary.errors
  io.write(string.format('\\nSCALE_SUMMARY {"answered":%d,"input":%d,"output":%d,"without_usage":%d,"refused":"%s","socket_errors":%d,"p50_us":%d,"p99_us":%d}\\n',
    a, i, o, w, r, e.connect + e.read + e.write + e.timeout, latency:percentile(50), latency:percentile(99)))
end
`;
}

/** wrk drives `origin` with `connections` connections for `seconds` of load (plus a grace to finish). */
export async function mixedLoad(options: { origin: string; key: string; seconds: number; connections: number; threads: number; workDir: string; during?: () => Promise<void> }): Promise<MixedResult> {
  const outDir = fs.mkdtempSync(path.join(options.workDir, 'wrk-'));
  const script = path.join(outDir, 'mix.lua');
  fs.writeFileSync(script, luaScript(options.key, options.seconds, outDir));
  const graceSeconds = 4;
  const wrk = run('wrk', [`-t${options.threads}`, `-c${options.connections}`, `-d${options.seconds + graceSeconds}s`, '--timeout', '10s', '-s', script, options.origin], { maxBuffer: 16 << 20 });
  await options.during?.();
  const { stdout } = await wrk;
  const line = stdout.split('\n').find((text) => text.startsWith('SCALE_SUMMARY '));
  if (!line) throw new Error(`wrk printed no summary:\n${stdout}`);
  const summary = JSON.parse(line.slice('SCALE_SUMMARY '.length)) as Record<string, number | string>;
  const refused: Record<string, number> = {};
  for (const pair of String(summary.refused).split(' ').filter(Boolean)) {
    const [status, count] = pair.split(':');
    refused[status!] = (refused[status!] ?? 0) + Number(count);
  }
  const seenIds = new Set<string>();
  for (const file of fs.readdirSync(outDir).filter((name) => name.startsWith('seen-'))) {
    for (const id of fs.readFileSync(path.join(outDir, file), 'utf8').split('\n')) if (id) seenIds.add(id);
  }
  const answered = Number(summary.answered);
  return {
    rps: answered / options.seconds,
    p50Ms: Number(summary.p50_us) / 1000,
    p99Ms: Number(summary.p99_us) / 1000,
    answered,
    inputTokens: Number(summary.input),
    outputTokens: Number(summary.output),
    refused,
    withoutUsage: Number(summary.without_usage),
    socketErrors: Number(summary.socket_errors),
    seenIds,
  };
}
