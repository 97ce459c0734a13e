export {
  ApiClient,
  type ApiResponse,
  type ClientOptions,
  type QueryValue,
  type RequestOptions,
} from "./client.js";
export {
  ApiError,
  ClientConfigError,
  NetworkError,
  OutcomeUnknownError,
  platformMessageOf,
} from "./errors.js";
export { type MetricsSnapshot, RequestMetrics } from "./metrics.js";
export { apiPath, encodeSegment, endpointTemplate, type PathId } from "./path.js";
export { REDACTED, Redactor } from "./redact.js";
