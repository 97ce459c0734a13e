/**
 * Progress on long runs, on stderr only (stdout carries the plan or report, possibly JSON): at a terminal a live
 * line (objects read, requests, retries, answers 429 and time held back by pacing when the platform rate-limits,
 * elapsed time) rewritten in place with log-update and cleared when done;
 * elsewhere (CI logs) a plain line every few seconds. `--no-progress` turns it off.
 */
import { createLogUpdate } from "log-update";
import type { RequestMetrics } from "../api/metrics.js";
import { plural } from "../report/common.js";

export interface ProgressOptions {
  /** Whether stderr is a terminal (live line) or a log (periodic lines). */
  tty: boolean;
  write: (text: string) => void;
  /** How often a line is written to a log, ms (FORGEFORM_PROGRESS_INTERVAL_MS, default 5000). */
  intervalMs?: number;
}

export interface Progress {
  /** Starts reporting a phase ("Reading live state", "Applying"), with what to count. */
  phase(name: string, metrics: RequestMetrics, extra?: () => string): void;
  stop(): void;
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

export function createProgress(opts: ProgressOptions): Progress {
  const tty = opts.tty;
  const live = tty ? createLogUpdate(process.stderr) : undefined;
  let timer: NodeJS.Timeout | undefined;
  let started = 0;
  const stopTimer = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };
  return {
    phase(name, metrics, extra) {
      stopTimer();
      started = Date.now();
      const line = () => {
        const { retries, total } = metrics.snapshot();
        return `${name}: ${[
          extra?.(),
          `${plural(metrics.objects, "object")} read`,
          plural(total, "request"),
          retries > 0 ? plural(retries, "retry", "retries") : undefined,
          metrics.throttled > 0
            ? `${metrics.throttled.toLocaleString("en-US")} rate limited (429)`
            : undefined,
          metrics.pacedMs > 0 ? `${seconds(metrics.pacedMs)} paced` : undefined,
          seconds(Date.now() - started),
        ]
          .filter((p) => p !== undefined)
          .join(", ")}`;
      };
      if (live) {
        timer = setInterval(() => live(line()), 250);
      } else {
        timer = setInterval(() => opts.write(`${line()}\n`), opts.intervalMs ?? 5000);
      }
      timer.unref();
    },
    stop() {
      stopTimer();
      live?.clear();
      live?.done();
    },
  };
}

/** The progress the CLI shows, or none: off with --no-progress, and when stderr is not the process's. */
export function cliProgress(enabled: boolean, isProcessIo: boolean): Progress | undefined {
  if (!enabled || !isProcessIo) return undefined;
  const interval = Number(process.env["FORGEFORM_PROGRESS_INTERVAL_MS"]);
  return createProgress({
    tty: Boolean(process.stderr.isTTY),
    write: (text) => process.stderr.write(text),
    // A timer past 2^31-1 ms would fire at once: anything over an hour is ignored.
    ...(Number.isFinite(interval) && interval > 0 && interval <= 3_600_000 ? { intervalMs: interval } : {}),
  });
}
