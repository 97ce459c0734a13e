export {
  ApiClient,
  type ApiResponse,
  type ClientOptions,
  DEFAULT_MAX_LIST_BYTES,
  DEFAULT_MAX_PAGES,
  DEFAULT_MAX_RESPONSE_BYTES,
  OPTION_MAXIMUMS,
  type QueryValue,
  type RequestOptions,
  type Shape,
} from "./client.js";
export {
  ApiError,
  ClientConfigError,
  NetworkError,
  OutcomeUnknownError,
  platformMessageOf,
  RateLimitSpentError,
  ResponseError,
} from "./errors.js";
export { type MetricsSnapshot, RequestMetrics } from "./metrics.js";
export { apiPath, encodeSegment, endpointTemplate, type PathId } from "./path.js";
export { REDACTED, Redactor } from "./redact.js";
export { type FieldType, listOf, type Nested, objectOf } from "./shape.js";
