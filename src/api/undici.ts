/**
 * The parts of undici the client uses, its connection pool and the proxy agent that follows HTTP(S)_PROXY and
 * NO_PROXY, loaded from their own modules. undici's index loads all of undici (fetch, WebSocket, EventSource,
 * caches, mocks, interceptors), which a forgeform process never runs and which took about 9 MB of every plan's
 * peak memory (docs/benchmarks.md, "Memory"). The index also adds its request API to every dispatcher: this module
 * does the same, so a Pool here answers `request()` as undici's does.
 *
 * These paths are undici 7's own files, not its documented interface: package.json pins undici's version, and
 * test/api/undici.test.ts fails if they stop being the index's own classes.
 */
import api from "undici/lib/api/index.js";
import Dispatcher from "undici/lib/dispatcher/dispatcher.js";
import EnvHttpProxyAgent from "undici/lib/dispatcher/env-http-proxy-agent.js";
import Pool from "undici/lib/dispatcher/pool.js";

Object.assign(Dispatcher.prototype, api);

export { EnvHttpProxyAgent, Pool };
