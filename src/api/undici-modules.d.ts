/**
 * undici's own modules that src/api/undici.ts loads instead of undici's index. undici ships types for its index
 * only; these are the index's exports of the same names (test/api/undici.test.ts checks they are the same objects).
 */
declare module "undici/lib/dispatcher/dispatcher.js" {
  const Dispatcher: typeof import("undici").Dispatcher;
  export default Dispatcher;
}
declare module "undici/lib/dispatcher/pool.js" {
  const Pool: typeof import("undici").Pool;
  export default Pool;
}
declare module "undici/lib/dispatcher/env-http-proxy-agent.js" {
  const EnvHttpProxyAgent: typeof import("undici").EnvHttpProxyAgent;
  export default EnvHttpProxyAgent;
}
/** The `connect` method of the request API undici's index adds to every dispatcher (the proxy agent's tunnels). */
declare module "undici/lib/api/api-connect.js" {
  const connect: (...args: never[]) => unknown;
  export default connect;
}
