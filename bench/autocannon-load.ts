import autocannon from 'autocannon';
import type { LoadGenerator, LoadResult } from './load.js';

/** The fallback load generator, run in this process (already on the driver CPU). */
export function autocannonLoad(): LoadGenerator {
  return {
    name: 'autocannon',
    async run(request, connections, seconds): Promise<LoadResult> {
      const result = await autocannon({
        url: request.origin + request.path,
        method: 'POST',
        headers: request.headers,
        body: request.body,
        connections,
        duration: seconds,
      });
      const requests = result.requests.total;
      return { requests, seconds: result.duration, rps: requests / result.duration, failures: result.non2xx + result.errors + result.timeouts };
    },
  };
}
