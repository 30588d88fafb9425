// The bench reads wrk's text report and /proc stat lines; these pin both readers on real output
// (wrk 4.1.0 as Debian ships it), so a misread figure fails here rather than in a table.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { childrenCpuSeconds, clockTicks, statFields } from '../../bench/proc.ts';
import { parseWrk } from '../../bench/wrk.ts';

const FAILING = `Running 1s test @ http://127.0.0.1:18089/bad
  1 threads and 4 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     2.41ms    7.78ms  59.96ms   94.13%
    Req/Sec     9.25k     4.90k   14.62k    40.00%
  Latency Distribution
     50%  327.00us
     75%  681.00us
     90%    2.95ms
     99%   46.01ms
  9213 requests in 1.00s, 18.84MB read
  Socket errors: connect 0, read 2, write 1, timeout 3
  Non-2xx or 3xx responses: 9213
Requests/sec:   9186.97
Transfer/sec:     18.78MB
`;

const PASSING = `Running 1s test @ http://127.0.0.1:18089/
  1 threads and 2 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   327.38us  673.02us   6.93ms   92.81%
    Req/Sec    12.25k     2.84k   17.69k    54.55%
  Latency Distribution
     50%  135.00us
     75%  203.00us
     90%  572.00us
     99%    3.78ms
  13369 requests in 1.10s, 27.09MB read
Requests/sec:  12157.99
Transfer/sec:     24.64MB

WRK_PARENT_STAT 15447 (sh) S 15446 15443 12181 0 -1 4194304 62 259 0 3 0 0 0 0 20 0
`;

test('should read requests, rate and latency percentiles from a wrk report', () => {
  const report = parseWrk(PASSING);
  assert.equal(report.requests, 13369);
  assert.equal(report.seconds, 1.1);
  assert.equal(report.reqPerSec, 12157.99);
  assert.deepEqual(report.latencyMs, { p50: 0.135, p90: 0.572, p99: 3.78 });
  assert.equal(report.failed, 0);
  assert.equal(Math.round(report.bytesRead), Math.round(27.09 * 1024 * 1024));
});

test('should count error statuses and socket errors as failed requests', () => {
  const report = parseWrk(FAILING);
  assert.equal(report.failed, 9213 + 6);
  assert.equal(report.latencyMs.p99, 46.01);
});

test('should refuse a report it cannot read instead of reporting zeros', () => {
  assert.throws(() => parseWrk('unable to connect to 127.0.0.1:1 Connection refused\n'), /unreadable report/);
});

test('should read CPU times from a stat line whose command name has spaces and parentheses', () => {
  const line = '4242 (node (bench) x) R 1 2 3 0 -1 4194304 62 259 0 3 700 300 40 60 20 0 1 0 375204';
  const fields = statFields(line);
  assert.equal(fields[0], 'R');
  // utime 700, stime 300, cutime 40, cstime 60 (fields 14 to 17).
  assert.equal(Number(fields[11]) + Number(fields[12]), 1000);
  assert.equal(childrenCpuSeconds(line), 100 / clockTicks());
});
