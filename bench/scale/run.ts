/**
 * `npm run scale`: nginx terminating TLS in front of 3 routers that share one redis-server usage
 * store, driven by wrk with a mix of Chat, Responses and Messages requests (half streamed)
 * against a zero-think-time fake upstream. Measures one router alone against the three, checks
 * that /whoami equals the usage the clients were told to the token, that a router SIGKILLed and
 * restarted mid-run loses nothing, and how far 64 concurrent clients overshoot a cap.
 * With `--ha`, Redis is a primary, a replica and three sentinels (`redis-sentinel://…`): the third
 * row SIGKILLs the primary instead of a router, the cap row kills the next primary, and the run
 * ends with the failover figures (requests failed, usage lost or counted twice, cap overshoot,
 * seconds to the promotion). Not part of `npm test`; installs nginx, redis-server, redis-sentinel
 * and wrk with apt-get when run as root.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { compileChildEntries } from '../child-entries.js';
import { ensureDist } from '../ensure-dist.js';
import { startServer } from '../processes.js';
import { makeCertificate } from './certificate.js';
import { checkLedger, settledWhoami, type LedgerCheck } from './ledger-check.js';
import { mixedLoad, type MixedResult } from './mixed-load.js';
import { startNginx } from './nginx.js';
import { startRedis, type RedisServer } from './redis.js';
import { startSentinelRedis, type SentinelRedis } from './sentinels.js';
import { printReport, type Row } from './report.js';
import { killRouter, prepareHomes, startRouter, type Router } from './routers.js';
import { ensureTools } from './tools.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = path.join(ROOT, 'bin', 'svc-router.js');
const ROUTERS = 3;
const CAP_TOKENS = 2_000;

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { seconds: { type: 'string', default: '12' }, connections: { type: 'string', default: '32' }, markdown: { type: 'boolean', default: false }, ha: { type: 'boolean', default: false } },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const ha = values.ha === true;
if (!(seconds >= 3) || !(connections >= 1)) throw new Error('usage: npm run scale -- [--seconds S (>= 3, default 12)] [--connections N (default 32)] [--markdown] [--ha]');

const started = Date.now();
const log = (line: string) => process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}\n`);

async function main(): Promise<void> {
  ensureTools(log, ha);
  ensureDist(ROOT, log);
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-router-scale-'));
  const cleanups: Array<() => Promise<void> | void> = [() => fs.rmSync(workDir, { recursive: true, force: true })];
  try {
    const upstream = await startServer({ name: 'fake upstream', command: [process.execPath, compileChildEntries()('fake-upstream.ts')] });
    cleanups.unshift(() => upstream.stop());
    const sentinels: SentinelRedis | undefined = ha ? await startSentinelRedis(workDir) : undefined;
    const redis: RedisServer = sentinels ?? (await startRedis());
    cleanups.unshift(() => redis.stop());
    const homes = prepareHomes(upstream.origin, ROUTERS, { capped: CAP_TOKENS }, ['warmup', 'solo', 'balanced', 'killed', 'capped']);
    cleanups.push(() => homes.remove());
    const routers: Router[] = await Promise.all(homes.homes.map((home) => startRouter(CLI, home, redis.url)));
    cleanups.unshift(() => Promise.all(routers.map((router) => router.server.stop())).then(() => undefined));
    const lb = await startNginx(workDir, routers.map((router) => router.origin), makeCertificate(workDir));
    cleanups.unshift(() => lb.stop());
    log(`fake upstream ${upstream.origin}, redis ${redis.url}, routers ${routers.map((router) => router.origin).join(' ')}, nginx ${lb.origin}`);

    // Every router compiles its hot paths before anything is measured (not counted anywhere).
    log('warm-up: 3 s through nginx');
    await mixedLoad({ origin: lb.origin, key: homes.keys.warmup!, seconds: 3, connections, threads: 2, workDir });

    const origins = () => routers.map((router) => router.origin);
    /** One measurement: its own developer, its ids in Redis from before and after. */
    const measure = async (developer: string, origin: string, load: Omit<Parameters<typeof mixedLoad>[0], 'origin' | 'key' | 'workDir'>): Promise<{ load: MixedResult; ledger: LedgerCheck }> => {
      const before = await redis.appliedRequestIds();
      const result = await mixedLoad({ ...load, origin, key: homes.keys[developer]!, workDir });
      const usage = await settledWhoami(origins(), homes.keys[developer]!);
      const applied = new Set([...(await redis.appliedRequestIds())].filter((id) => !before.has(id)));
      return { load: result, ledger: checkLedger(usage, result, applied) };
    };

    log(`one router alone, plain HTTP: ${connections} connections, ${seconds} s`);
    const alone = await measure('solo', routers[0]!.origin, { seconds, connections, threads: 1 });
    log(`${ROUTERS} routers behind nginx (TLS): ${connections} connections, ${seconds} s`);
    const balanced = await measure('balanced', lb.origin, { seconds, connections, threads: 2 });

    const killAt = Math.max(1, Math.round(seconds / 3));
    const downFor = 2;
    const failovers: number[] = [];
    const killPrimary = async (at: number) => {
      await new Promise((resolve) => setTimeout(resolve, at * 1000));
      failovers.push(await sentinels!.killPrimary());
      log(`Redis primary SIGKILLed; a replica was promoted ${failovers.at(-1)!.toFixed(2)} s later`);
      await sentinels!.restartKilled();
      log('the killed Redis is back, as a replica of the new primary');
    };
    log(sentinels ? `${ROUTERS} routers behind nginx, Redis primary SIGKILLed at ${killAt} s` : `${ROUTERS} routers behind nginx, router 2 SIGKILLed at ${killAt} s and started again ${downFor} s later`);
    const killed = await measure('killed', lb.origin, {
      seconds,
      connections,
      threads: 2,
      during: async () => {
        if (sentinels) return killPrimary(killAt);
        await new Promise((resolve) => setTimeout(resolve, killAt * 1000));
        const victim = routers[1]!;
        await killRouter(victim);
        log(`router 2 (pid ${victim.server.pid}) killed`);
        await new Promise((resolve) => setTimeout(resolve, downFor * 1000));
        routers[1] = await startRouter(CLI, victim.home, redis.url, Number(new URL(victim.origin).port));
        log(`router 2 back (pid ${routers[1].server.pid})`);
      },
    });

    const capClients = 64;
    log(`cap of ${CAP_TOKENS} tokens, ${capClients} concurrent clients through nginx`);
    const capped = await measure('capped', lb.origin, { seconds: 4, connections: capClients, threads: 2, ...(sentinels ? { during: () => killPrimary(1) } : {}) });

    const rows: Row[] = [
      { name: 'one router alone (HTTP, direct)', connections, ...alone },
      { name: `${ROUTERS} routers behind nginx (HTTPS)`, connections, ...balanced },
      { name: sentinels ? `same, Redis primary SIGKILLed at ${killAt} s` : `same, router 2 SIGKILLed at ${killAt} s, back ${downFor} s later`, connections, ...killed },
      { name: `cap ${CAP_TOKENS.toLocaleString('en-US')} tokens, ${capClients} clients${sentinels ? ', primary SIGKILLed at 1 s' : ''}`, connections: capClients, ...capped },
    ];
    printReport(rows, { seconds, capTokens: CAP_TOKENS, markdown: values.markdown === true, elapsedSeconds: (Date.now() - started) / 1000 });
    if (sentinels) printFailover(killed, capped, failovers);
    const inexact = rows.slice(0, 3).filter((row) => !row.ledger.exact);
    if (inexact.length > 0) process.exitCode = 1;
  } finally {
    for (const cleanup of cleanups) {
      try {
        await cleanup();
      } catch (error) {
        log(`cleanup: ${(error as Error).message}`);
      }
    }
  }
}

main().catch((error) => {
  process.stderr.write(`scale: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});

/** The failover figures of an --ha run, from the rows whose primary was killed. */
function printFailover(killed: { load: MixedResult; ledger: LedgerCheck }, capped: { load: MixedResult; ledger: LedgerCheck }, failovers: number[]): void {
  const failed = Object.values(killed.load.refused).reduce((sum, count) => sum + count, 0) + killed.load.socketErrors;
  const fiveHundreds = Object.entries(killed.load.refused).filter(([status]) => status.startsWith('5') && status !== '503').reduce((sum, [, count]) => sum + count, 0);
  const figures = [
    `requests failed while failing over: ${failed} (500s: ${fiveHundreds})`,
    `usage lost (answered, not counted): ${killed.ledger.seenNotBilled + capped.ledger.seenNotBilled}`,
    `counted twice: ${Math.max(0, killed.ledger.whoamiRequests - killed.ledger.clientAnswers)}`,
    `cap overshoot: ${capped.ledger.whoamiTokens - CAP_TOKENS} tokens over ${CAP_TOKENS}`,
    `failover (kill → promotion): ${failovers.map((value) => `${value.toFixed(2)} s`).join(', ')}`,
  ];
  process.stdout.write(`\nRedis failover (--ha):\n${figures.map((line) => `  ${line}`).join('\n')}\n`);
}
