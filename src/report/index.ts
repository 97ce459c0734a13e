/** Renderers: pure functions from a Plan to text. They never call the API or read manifests. */

export { targetOf } from "../plan/address.js";
export { PlanFormatError, parsePlanJson, renderPlanJson } from "../plan/json.js";
export {
  type DriftOptions,
  type DriftStatus,
  type DriftSummary,
  driftExitCode,
  driftStatus,
  driftSummary,
  driftSummaryLine,
  type JunitOptions,
  renderDriftJson,
  renderDriftJunit,
  renderDriftMarkdown,
  renderDriftText,
} from "./drift.js";
export { renderApplyJson } from "./json.js";
export { DEFAULT_MARKDOWN_MAX, type MarkdownOptions, renderPlanMarkdown } from "./markdown.js";
export { planSummaryLine, renderPlanText, type TextOptions } from "./text.js";
