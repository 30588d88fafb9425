// What a process costs, read from Linux's /proc: CPU time (utime + stime of /proc/PID/stat, in
// clock ticks of `getconf CLK_TCK`) and resident memory (VmRSS of /proc/PID/status).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

let ticks: number | undefined;

/** Clock ticks per second of /proc's CPU times (USER_HZ; 100 on every Linux seen so far). */
export function clockTicks(): number {
  if (ticks === undefined) {
    const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    if (!Number.isInteger(value) || value <= 0) throw new Error(`getconf CLK_TCK gave "${value}"`);
    ticks = value;
  }
  return ticks;
}

/** The fields of a /proc/PID/stat line after the command name; index 0 is field 3 (state). */
export function statFields(line: string): string[] {
  return line.slice(line.lastIndexOf(')') + 2).trim().split(' ');
}

/** CPU seconds (user + system) process `pid` has used so far. */
export function cpuSeconds(pid: number): number {
  const fields = statFields(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  // utime and stime are fields 14 and 15.
  return (Number(fields[11]) + Number(fields[12])) / clockTicks();
}

/** CPU seconds (user + system) of the reaped children of a process, from its stat line. */
export function childrenCpuSeconds(statLine: string): number {
  const fields = statFields(statLine);
  // cutime and cstime are fields 16 and 17.
  return (Number(fields[13]) + Number(fields[14])) / clockTicks();
}

/** Resident set size of process `pid`, in bytes. */
export function rssBytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  if (match === null) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

/** Figures are reported in MB of 10^6 bytes (VmRSS counts KiB), so a 150 MB goal is read strictly. */
export const MB = 1_000_000;
