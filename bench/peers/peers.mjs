// graphile-worker and pg-boss on the PostgreSQL that bench/run.sh queue uses, in the shape of our queue figures:
// single enqueue (8 concurrent producers), drain one job per fetch (8 concurrent workers), drain in batches where the
// library batches, and insert -> start latency. Prints "key = value" lines like BenchMain. Bounded: N jobs per row.
// Each library first runs the same rows unmeasured, as our queue's figures are taken after a warm-up of their size
// (pg-boss's one-job-per-fetch and latency rows smaller: its workers poll every 0.5 s, whatever they have run).
import pg from 'pg';
import { run, makeWorkerUtils } from 'graphile-worker';
import PgBoss from 'pg-boss';

const url = process.env.BENCH_DB_URL || 'postgres://postgres@127.0.0.1:5432/test';
const N = Number(process.env.BENCH_JOBS || 4000);
const LATENCY = Number(process.env.BENCH_LATENCY_JOBS || 200);
if (![N, LATENCY].every(v => Number.isInteger(v) && v >= 1)) {
  throw new Error('BENCH_JOBS and BENCH_LATENCY_JOBS must be whole numbers of at least 1');
}
const print = (k, v) => console.log(`${k} = ${v}`);
const silent = () => {};
const rate = (n, ms) => `${Math.round(n / (ms / 1000))}/s`;
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(s.length * p / 100))]; };
const now = () => performance.now();

async function parallel(n, workers, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: workers }, async () => { while (next < n) { next++; await fn(); } }));
}

async function dropSchema(name) {
  const c = new pg.Client({ connectionString: url }); await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`); await c.end();
}

async function graphile(n, latency, figure) {
  const schema = 'efferent_peer_graphile';
  await dropSchema(schema);
  const utils = await makeWorkerUtils({ connectionString: url, schema });
  await utils.migrate();
  let t = now();
  await parallel(n, 8, () => utils.addJob('noop', {}));
  figure('peers.graphile.enqueue', rate(n, now() - t));
  let done = 0; let finish;
  const all = new Promise(r => { finish = r; });
  t = now();
  const runner = await run({ connectionString: url, schema, concurrency: 8, pollInterval: 1000, noHandleSignals: true,
    logger: quiet(), taskList: { noop: async () => { if (++done === n) finish(); } } });
  await all;
  figure('peers.graphile.drain', rate(n, now() - t));
  // insert -> start: one job at a time, the runner woken by LISTEN/NOTIFY.
  const lat = []; let started;
  runner.events.on('job:start', () => { if (started) started(); });
  for (let i = 0; i < latency; i++) {
    const s = new Promise(r => { started = r; });
    const t0 = now(); await utils.addJob('noop', {}); await s; lat.push(now() - t0);
  }
  figure('peers.graphile.insert-to-start.p50', `${pct(lat, 50).toFixed(2)} ms`);
  figure('peers.graphile.insert-to-start.p99', `${pct(lat, 99).toFixed(2)} ms`);
  await runner.stop(); await utils.release();
}

async function pgboss(n, unbatched, latency, figure) {
  // The unbatched row drains jobs sent for the enqueue row: more would never come.
  if (unbatched > n) throw new Error(`pg-boss: ${unbatched} jobs to drain, only ${n} sent`);
  const schema = 'efferent_peer_pgboss';
  await dropSchema(schema);
  const boss = new PgBoss({ connectionString: url, schema, max: 12, supervise: false, schedule: false });
  boss.on('error', e => console.error('pg-boss: ' + e.message));
  await boss.start();
  await boss.createQueue('noop'); await boss.createQueue('noop-batch'); await boss.createQueue('noop-latency');
  let t = now();
  await parallel(n, 8, () => boss.send('noop', {}));
  figure('peers.pgboss.enqueue', rate(n, now() - t));
  await boss.insert(Array.from({ length: n }, () => ({ name: 'noop-batch', data: {} })));
  for (const [queue, batchSize, key, count] of [['noop', 1, 'drain', unbatched], ['noop-batch', 64, 'drain-batched', n]]) {
    let done = 0; let finish;
    const all = new Promise(r => { finish = r; });
    t = now();
    const ids = [];
    for (let w = 0; w < 8; w++) {
      ids.push(await boss.work(queue, { batchSize, pollingIntervalSeconds: 0.5 }, async jobs => {
        done += jobs.length; if (done >= count) finish();
      }));
    }
    await all;
    figure(`peers.pgboss.${key}`, rate(count, now() - t));
    await boss.offWork(queue);
  }
  const lat = []; let started;
  await boss.work('noop-latency', { batchSize: 1, pollingIntervalSeconds: 0.5 }, async () => { if (started) started(); });
  for (let i = 0; i < latency; i++) {
    const s = new Promise(r => { started = r; });
    const t0 = now(); await boss.send('noop-latency', {}); await s; lat.push(now() - t0);
  }
  figure('peers.pgboss.insert-to-start.p50', `${pct(lat, 50).toFixed(2)} ms`);
  figure('peers.pgboss.insert-to-start.p99', `${pct(lat, 99).toFixed(2)} ms`);
  await boss.stop({ graceful: false, wait: true });
}

function quiet() {
  const scope = () => ({ debug() {}, info() {}, warn() {}, error: (m) => console.error(m), scope });
  return { ...scope(), scope };
}

await graphile(N, LATENCY, silent);
await graphile(N, LATENCY, print);
// One job per fetch, each worker polling every 0.5 s (pg-boss's floor): a few hundred jobs are enough to see it.
await pgboss(N, Math.min(N, 16), Math.min(LATENCY, 5), silent);
await pgboss(N, Math.min(N, 400), Math.min(LATENCY, 40), print);
process.exit(0);
