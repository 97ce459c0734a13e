/** Request counts for reports and benchmarks. */

export interface MetricsSnapshot {
  /** Every HTTP request sent, retries and pages included. */
  total: number;
  /** Requests that repeated an earlier one after a retryable failure. */
  retries: number;
  /** Pages fetched by `list()` (the first page included). */
  pages: number;
  /** Requests per method. */
  byMethod: Record<string, number>;
  /** Requests per `METHOD /endpoint/template`, e.g. `GET /projects/:id/pipeline_schedules`. */
  byEndpoint: Record<string, number>;
}

export class RequestMetrics {
  #total = 0;
  #retries = 0;
  #pages = 0;
  #objects = 0;
  #throttled = 0;
  #pacedRequests = 0;
  #pacedMs = 0;
  #rereads = 0;
  readonly #byMethod = new Map<string, number>();
  readonly #byEndpoint = new Map<string, number>();

  /** Counts one request sent to `template` (see `endpointTemplate`). */
  countRequest(method: string, template: string): void {
    this.#total += 1;
    this.#byMethod.set(method, (this.#byMethod.get(method) ?? 0) + 1);
    const key = `${method} ${template}`;
    this.#byEndpoint.set(key, (this.#byEndpoint.get(key) ?? 0) + 1);
  }

  countRetry(): void {
    this.#retries += 1;
  }

  countPage(): void {
    this.#pages += 1;
  }

  /** Counts an answer 429 (rate limited). */
  countThrottled(): void {
    this.#throttled += 1;
  }

  /** Counts a request that waited for its turn under pacing, holding the run back `ms` more. */
  countPaced(ms: number): void {
    this.#pacedRequests += 1;
    this.#pacedMs += ms;
  }

  /** Counts a collection re-read because a create's outcome was unknown (its response lost, or a 503). */
  countReread(): void {
    this.#rereads += 1;
  }

  /** Collections re-read after a create whose outcome was unknown, so far. */
  get rereads(): number {
    return this.#rereads;
  }

  /** Answers 429 (rate limited) so far. */
  get throttled(): number {
    return this.#throttled;
  }

  /** Requests that waited for their turn under pacing so far. */
  get pacedRequests(): number {
    return this.#pacedRequests;
  }

  /** Time the run was held back by pacing so far, ms (waits that overlap count once). */
  get pacedMs(): number {
    return this.#pacedMs;
  }

  /** Counts objects received (the items of a list page), for progress. */
  countObjects(n: number): void {
    this.#objects += n;
  }

  /** Objects received so far. */
  get objects(): number {
    return this.#objects;
  }

  snapshot(): MetricsSnapshot {
    const sorted = (map: Map<string, number>) =>
      Object.fromEntries([...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return {
      total: this.#total,
      retries: this.#retries,
      pages: this.#pages,
      byMethod: sorted(this.#byMethod),
      byEndpoint: sorted(this.#byEndpoint),
    };
  }

  reset(): void {
    this.#total = 0;
    this.#retries = 0;
    this.#pages = 0;
    this.#objects = 0;
    this.#throttled = 0;
    this.#pacedRequests = 0;
    this.#pacedMs = 0;
    this.#byMethod.clear();
    this.#byEndpoint.clear();
  }
}
