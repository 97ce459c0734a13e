/**
 * The settings a project keeps beyond the core record, as types and the feature tables they are made of (13.12's
 * `ProjectFeature` and the project settings of `PUT /projects/:id`). Apart from model.ts, which validates them, so
 * that the store can name the type without importing the model.
 */

/** The project features with an access level (`<feature>_access_level`). */
export const FEATURES = [
  "issues",
  "repository",
  "merge_requests",
  "forking",
  "wiki",
  "builds",
  "snippets",
  "pages",
  "operations",
  "analytics",
] as const;
export type Feature = (typeof FEATURES)[number];
export type FeatureLevel = "disabled" | "private" | "enabled" | "public";
export type FeatureLevels = Record<`${Feature}_access_level`, FeatureLevel>;

/** `ProjectFeature`'s order of levels (DISABLED 0, PRIVATE 10, ENABLED 20, PUBLIC 30). */
export const FEATURE_LEVEL_RANK: Record<FeatureLevel, number> = {
  disabled: 0,
  private: 10,
  enabled: 20,
  public: 30,
};

/** The legacy `*_enabled` booleans of the API and the record, and the feature each one sets. */
export const LEGACY_FEATURE_FLAGS = {
  issues_enabled: "issues",
  merge_requests_enabled: "merge_requests",
  wiki_enabled: "wiki",
  jobs_enabled: "builds",
  snippets_enabled: "snippets",
} as const satisfies Record<string, Feature>;

/** Settings a project keeps beyond the core record (`ProjectRec.settings`; absent fields have the defaults). */
export interface ProjectSettings extends FeatureLevels {
  merge_method: "merge" | "rebase_merge" | "ff";
  squash_option: "never" | "always" | "default_on" | "default_off";
  only_allow_merge_if_pipeline_succeeds: boolean;
  allow_merge_on_skipped_pipeline: boolean;
  only_allow_merge_if_all_discussions_are_resolved: boolean;
  resolve_outdated_diff_discussions: boolean;
  remove_source_branch_after_merge: boolean;
  printing_merge_request_link_enabled: boolean;
  suggestion_commit_message: string | null;
  autoclose_referenced_issues: boolean;
  lfs_enabled: boolean;
  packages_enabled: boolean;
  emails_disabled: boolean | null;
  show_default_award_emojis: boolean;
  build_git_strategy: "fetch" | "clone";
  build_timeout: number;
  build_coverage_regex: string | null;
  ci_config_path: string | null;
  ci_default_git_depth: number;
  ci_forward_deployment_enabled: boolean;
  restrict_user_defined_variables: boolean;
  keep_latest_artifact: boolean;
  auto_cancel_pending_pipelines: "enabled" | "disabled";
  /** `null`: not set on the project, inherited (groups, then the instance default, true). */
  auto_devops_enabled: boolean | null;
  auto_devops_deploy_strategy: "continuous" | "manual" | "timed_incremental";
  // licensed edition
  approvals_before_merge: number;
  merge_requests_template: string | null;
  issues_template: string | null;
  merge_pipelines_enabled: boolean;
  merge_trains_enabled: boolean;
}
