import fs from 'node:fs';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes a lock (an exclusively created file holding our pid), waiting while another process holds
 * it, so test files running at once share one slow install or build. A lock older than `staleMs`,
 * or whose holder is dead, is from a run that died and is taken over. Returns the release.
 */
export async function acquireFileLock(lockFile: string, staleMs: number, what: string): Promise<() => void> {
  const deadline = Date.now() + staleMs + 60_000;
  for (;;) {
    try {
      const fd = fs.openSync(lockFile, 'wx');
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      return () => fs.rmSync(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let stale = false;
    try {
      const holder = Number(fs.readFileSync(lockFile, 'utf8'));
      const age = Date.now() - fs.statSync(lockFile).mtimeMs;
      stale = age > staleMs || (Number.isInteger(holder) && holder > 0 && !processAlive(holder));
    } catch {
      // The holder removed it between our checks; try again.
    }
    if (stale) fs.rmSync(lockFile, { force: true });
    else if (Date.now() > deadline) throw new Error(`timed out waiting for the ${what} lock ${lockFile}`);
    else await sleep(250);
  }
}
