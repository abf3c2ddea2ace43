import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { findFreePort } from './ports.js';

export interface LoadBalancer {
  /** https://127.0.0.1:PORT */
  origin: string;
  stop(): Promise<void>;
}

/**
 * nginx terminating TLS in front of the routers, as a team would run it: HTTP/1.1 with kept-alive
 * upstream connections, no buffering (streams pass through as they come), a router that refuses
 * connections skipped for the others. A POST already sent to a router that dies is not sent again
 * (nginx's default for non-idempotent requests): its client gets a 502, never a second charge.
 */
function config(dir: string, port: number, routers: string[], tls: { cert: string; key: string }): string {
  const temp = (name: string) => path.join(dir, name);
  return `worker_processes 1;
${process.getuid?.() === 0 ? 'user root;' : ''}
pid ${temp('nginx.pid')};
error_log ${temp('error.log')} warn;
daemon off;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${temp('client_body')};
  proxy_temp_path ${temp('proxy')};
  fastcgi_temp_path ${temp('fastcgi')};
  uwsgi_temp_path ${temp('uwsgi')};
  scgi_temp_path ${temp('scgi')};
  upstream routers {
${routers.map((origin) => `    server ${new URL(origin).host} max_fails=1 fail_timeout=1s;`).join('\n')}
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${port} ssl;
    ssl_certificate ${tls.cert};
    ssl_certificate_key ${tls.key};
    ssl_session_cache shared:SSL:1m;
    client_max_body_size 25m;
    location / {
      proxy_pass http://routers;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 300s;
      proxy_next_upstream error timeout;
    }
  }
}
`;
}

export async function startNginx(dir: string, routers: string[], tls: { cert: string; key: string }): Promise<LoadBalancer> {
  const port = await findFreePort();
  const file = path.join(dir, 'nginx.conf');
  fs.writeFileSync(file, config(dir, port, routers, tls));
  const child: ChildProcess = spawn('nginx', ['-p', dir, '-e', path.join(dir, 'error.log'), '-c', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitForPort(port, exited, () => `nginx did not start: ${stderr}${readIfThere(path.join(dir, 'error.log'))}`);
  return {
    origin: `https://127.0.0.1:${port}`,
    async stop() {
      // SIGQUIT: nginx's graceful shutdown.
      child.kill('SIGQUIT');
      await exited;
    },
  };
}

const readIfThere = (file: string): string => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');

/** Resolves once something accepts connections on the port; fails if the process exits first. */
async function waitForPort(port: number, exited: Promise<void>, why: () => string): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (gone) throw new Error(why());
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(why());
}
