/**
 * The parts of undici the client uses, its connection pool and the proxy agent that follows HTTP(S)_PROXY and
 * NO_PROXY, loaded from their own modules. undici's index loads all of undici (fetch, WebSocket, EventSource,
 * caches, mocks, interceptors, and the request API with its streams), which a forgeform process never runs and
 * which took about 9 MB of every plan's peak memory (docs/benchmarks.md, "Memory"). The client sends its requests
 * through `dispatch` (src/api/exchange.ts), which every dispatcher has. The proxy agent opens its tunnels with
 * `connect`, which undici's index adds to every dispatcher with the rest of its request API: this module adds that
 * one method the same way.
 *
 * These paths are undici 7's own files, not its documented interface: package.json pins undici's version, and
 * test/api/undici.test.ts fails if they stop being the index's own.
 */
import connect from "undici/lib/api/api-connect.js";
import Dispatcher from "undici/lib/dispatcher/dispatcher.js";
import EnvHttpProxyAgent from "undici/lib/dispatcher/env-http-proxy-agent.js";
import Pool from "undici/lib/dispatcher/pool.js";

Object.assign(Dispatcher.prototype, { connect });

export { connect, EnvHttpProxyAgent, Pool };
